"""The product's Redis: every key name, clients per URL, the local server, the heap and notices."""
