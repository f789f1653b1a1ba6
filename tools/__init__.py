"""Maintainer tooling: builds and checks data the runtime packages ship. Never imported at run time."""
