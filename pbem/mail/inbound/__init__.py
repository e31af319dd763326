"""Playing by replying to the mail: inbound mail through an MTA pipe and LMTP.

- :mod:`.tags`: the reply address ``LOCAL+TAG@DOMAIN`` every seat's game mail carries
  (config ``mail.reply_address``); TAG names the game, the seat and the event the mail
  was made at, with a MAC under a key derived from the server key.
- :mod:`.moves`: the numbered list of legal moves a mail shows, and the reading of a
  reply's lines as moves (a code, a label, a written form, or the move's JSON).
- :mod:`.message`: what kind of message came in (a reply, an auto-reply, a delivery
  report, mail from the null sender, our own mail, a malformed message), the addresses
  no answer goes to, and the reply's own text (quoted text and signatures stripped
  with ``email-reply-parser``; an HTML-only reply read as text).
- :mod:`.receive`: taking one message in (``pbem receive`` and the LMTP listener share
  it): checks, moves and table talk.
- :mod:`.answers`: the answer a mail gets (to the seat's player, to a stranger, about a
  game no longer here; refusals once a day per person and kind).
- :mod:`.records`: the record of each message taken, which keeps a Message-ID from
  applying twice.
- :mod:`.bounces`: delivery reports that prove themselves (VERP), and which addresses
  bounce.
- :mod:`.lmtp`: the aiosmtpd LMTP listener (``pbem inbound --lmtp HOST:PORT``, or
  ``pbem worker`` with ``mail.inbound_lmtp``).
"""
