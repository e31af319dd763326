"""Mail: the outbox written with each event, rendering, and the SMTP/file dispatcher."""
