"""The one exception type the command line turns into a one-line message."""


class UserError(Exception):
    """Bad input or an unusable setup: reported in one line, exit status 2."""
