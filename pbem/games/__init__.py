"""Games as players and operators see them, built on the event log.

Creating games and applying moves (:mod:`.service`), listing (:mod:`.listing`), game
policy (:mod:`.policy`), engine upgrades (:mod:`.upgrade`), the seat rules and the seat
rescue actions (:mod:`.seat_rules`, :mod:`.rescue`, :mod:`.admin_lines`), the game-level
control (:mod:`.control`: policy changes, pause, resume), take-backs
(:mod:`.takeback`), portable logs for export and import (:mod:`.portable`), tokens
(:mod:`.tokens`) and the small result types mail relies on (:mod:`.outcomes`).
"""
