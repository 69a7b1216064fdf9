"""N2C2-CT Matching: one benchmark's folder (card.yaml, reader.py, README.md)."""
