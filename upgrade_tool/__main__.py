"""`python -m upgrade_tool` is the `paddle-upgrade` command."""
from upgrade_tool.cli import main

if __name__ == "__main__":
    main(prog_name="paddle-upgrade")
