"""Who may do what: accounts and tokens, user administration, the sign-in throttle."""
