"""The one exception type for bad input from a user, shared by every stage and entry point."""


class UsageError(Exception):
    """Bad input from the user (an option, a key, a file, a value): printed as one line, exit status 2."""
