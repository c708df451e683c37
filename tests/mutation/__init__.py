"""The on-demand mutation tool (run.py) and the check that its targets exist."""
