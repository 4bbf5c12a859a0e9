"""`python -m gradcli` runs the command line."""
from gradcli.cli import main

main()
