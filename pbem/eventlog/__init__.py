"""The event log: the append-only record every game is rebuilt from.

The log format and its hash chain (:mod:`.log`), the seeded chance that makes replays
exact (:mod:`.chance`), sealing of the per-game seed (:mod:`.seeds`), storage of events
and snapshots (:mod:`.store`), verification of a stored or exported log (:mod:`.verify`)
and the audit marks that record who looked at what (:mod:`.audit`).
"""
