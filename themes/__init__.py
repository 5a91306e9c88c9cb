"""Textual themes of the kzc console (dark, light, high-contrast, monochrome) and user theme loading."""
