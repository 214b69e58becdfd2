"""glTF 2.0 (placeholder, replaced below)."""
