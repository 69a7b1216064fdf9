"""The annotate stage: stored answers -> judge ratings by an LLM jury (resumable, never imputed)."""
