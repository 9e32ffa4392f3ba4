"""Test helpers shared by the test packages (the scripted OpenAI-compatible server)."""
