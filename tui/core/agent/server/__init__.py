"""The token agent itself, where the refresh tokens are: serving, its policy, its place, its peers."""
