"""Shared test support: real servers (the fault-injecting OpenAI-compatible server, llama.cpp's server) and
builders of run folders. ``tests/`` is on the import path (pyproject's ``pythonpath``), so tests import
``support.fault_server`` and so on; test modules never import each other."""
