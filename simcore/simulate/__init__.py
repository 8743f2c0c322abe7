"""Pass A: a chunk of the calendar simulated — sessions laid out, played and written as ``Results``.

* ``play`` — the kernels that play every board of a session through the bridge model.
"""
