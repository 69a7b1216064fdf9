"""MedDialog: one benchmark's folder (card.yaml, reader.py, README.md)."""
