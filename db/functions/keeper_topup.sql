-- keeper_topup: TopupPurseFromAtmCard's transaction.
-- The card's transaction advisory lock makes concurrent top-ups of one card sum exactly against
-- its daily limit; the sum reads card_recent_topups (the last day again), never the partitioned
-- topups, whose every partition a cached plan would lock.
-- The card's 24-hour sum must stay an index range scan whatever the statistics say: PL/pgSQL
-- keeps a cached plan made while card_recent_topups was young (a sequential scan, or a scan of
-- the whole day), so the function runs with enable_seqscan off and the table has no index on
-- the time alone (docs/schema.md, "Functions").
-- The session's read takes the card's lock in the same statement, for a valid session only; a call
-- that found none is answered by keeper_session_refusal, as the upserts' are. What the lock
-- guards (the card, the purse, the sum) is read after it, in statements of their own: each reads
-- what committed before it began.
CREATE OR REPLACE FUNCTION keeper_topup(p_call keeper_call, p_session_hash bytea, p_ttl_seconds integer,
                                        p_purse text, p_card_id bigint, p_amount numeric, p_max_amount numeric,
                                        p_default_daily_limit numeric)
RETURNS integer LANGUAGE plpgsql SET enable_seqscan = off AS $$
DECLARE
    s record;
    c record;
    v_refused integer;
BEGIN
    IF keeper_claim_needed(p_call) THEN PERFORM keeper_claim(p_call); END IF;
    LOOP
        -- Concurrent top-ups of one card sum exactly against its daily limit.
        SELECT v.login_id, pg_advisory_xact_lock(2, hashint8(p_card_id)) AS card_locked INTO s
          FROM keeper_valid_session(p_session_hash, p_ttl_seconds) v;
        EXIT WHEN FOUND;
        v_refused := keeper_session_refusal(p_call, p_session_hash, p_ttl_seconds);
        IF v_refused IS NOT NULL THEN
            RETURN v_refused;
        END IF;
    END LOOP;
    SELECT blocked, daily_limit, EXISTS (SELECT 1 FROM purses WHERE purse = p_purse AND login_id = s.login_id) AS purse_owned
      INTO c FROM cards WHERE id = p_card_id AND login_id = s.login_id;
    IF NOT FOUND OR c.blocked OR NOT c.purse_owned THEN
        RETURN keeper_audit(p_call, s.login_id, NULL, NULL, keeper_result('not_found'));  -- a blocked card answers as a missing one
    END IF;
    IF p_amount > p_max_amount OR
       (SELECT COALESCE(sum(amount), 0) FROM card_recent_topups
         WHERE card_id = p_card_id AND created_at > now() - interval '24 hours') + p_amount
       > COALESCE(c.daily_limit, p_default_daily_limit) THEN
        RETURN keeper_audit(p_call, s.login_id, NULL, NULL, keeper_result('limit_exceeded'));
    END IF;
    INSERT INTO topups (card_id, purse, amount, request_id) VALUES (p_card_id, p_purse, p_amount, p_call.request_id);
    INSERT INTO card_recent_topups (card_id, created_at, amount) VALUES (p_card_id, now(), p_amount);
    UPDATE purses SET balance = balance + p_amount WHERE purse = p_purse;
    RETURN keeper_audit(p_call, s.login_id, NULL, NULL, keeper_result('ok'));
END $$;
COMMENT ON FUNCTION keeper_topup(keeper_call, bytea, integer, text, bigint, numeric, numeric, numeric) IS
    'TopupPurseFromAtmCard''s transaction: ownership (5), the per-operation and 24-hour card limits (9), the top-up row and the purse balance.';
