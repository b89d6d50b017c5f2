"""Errors shared by the command-line modules (kept out of conformance.cli, which may run as
`__main__`, where a class defined there would be a different class from the imported one)."""


class UsageError(Exception):
    """Bad input from the user: reported in one line, exit code 2."""
