-- Sign-in attempts are throttled per e-mail and client address, and per client address (SPEC 9): each row
-- records the client the attempt came from (an IPv4 address or the /64 network of an IPv6 one; '' when
-- unknown, as for the rows written before this migration), and whether its password check is still running
-- (pending) or failed. A successful attempt removes its row.

ALTER TABLE login_attempt ADD COLUMN client_address TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE login_attempt ADD COLUMN pending BOOLEAN NOT NULL DEFAULT false;
CREATE INDEX login_attempt_client_address_idx ON login_attempt (client_address, attempted_on_utc);
