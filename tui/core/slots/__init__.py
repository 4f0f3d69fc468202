"""The slot concept: the spec's key and storage-name rules (rules, keys), the choice of slot for a
command (choice), the classification of a slot's state (state) and the repairs (repair).

Nothing is imported here: `assistant-auth token` loads only the modules it needs.
"""
