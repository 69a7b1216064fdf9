"""MIMIC-IV-BHC: one benchmark's folder (card.yaml, reader.py, README.md)."""
