"""The hash a call proves its secret with (docs/api-decisions.md, "Sessions and applications"):
MD5, in hex, of its parts in lower case joined by ':' — login, secret and session for
Authenticate; application, secret and userId for SubscribeApp."""
import hashlib


def auth_hash(*parts):
    return hashlib.md5(":".join(p.lower() for p in parts).encode()).hexdigest()
