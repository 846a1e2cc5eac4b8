"""Message intake: webhook signatures, the message schema, storing a message with its outbox entry."""
