"""assistant-auth: device-authorization sign-in and credential tools for a coding assistant."""

__version__ = "0.1.0"
