"""The Textual workbench: a thin shell over the same pipeline the headless commands use."""
