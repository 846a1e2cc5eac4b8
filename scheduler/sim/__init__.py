"""Everything only the simulator uses: its step scheduler (`core`), a discrete-event engine, workloads, reports."""
