"""Units (ambulances, engines, ...): the roster, their statuses and times, and the NFPA 1225 intervals."""
