-- keeper_claim_needed: whether an attempt has to run keeper_claim: every one but a first attempt
-- its host vouches for (p_call.host_recorded) that begins before its deadline and within a second
-- of the call's time. A look at the call by /call-outcome decides it as not applied only once no
-- attempt may still commit (keeper_decide_call, docs/design.md, "A call decided as not applied"):
-- an attempt that begins within a second of the call's time is seen there by its transaction's
-- start, and needs nothing here; one that begins later holds the call's lock, which keeper_claim
-- takes, to its commit, and looks for a decision. The common call begins milliseconds after nginx
-- saw it: one comparison more in this expression. Every operation's
-- function asks this first, as `IF keeper_claim_needed(p_call) THEN PERFORM keeper_claim(p_call);
-- END IF;`: plain SQL, so PL/pgSQL inlines it into that IF and evaluates it as a simple
-- expression, without an executor or a call of a function of its own, which the PERFORM of
-- keeper_claim costs every call: 6 % of SetAccountPermits' instructions in the database, of which
-- this spares the common call, with nothing to do there, 70 % (bench/history.md, "The
-- fixed costs of every call"). VOLATILE, as clock_timestamp is: PostgreSQL inlines no function
-- whose body is more volatile than it says. keeper_claim makes the same checks again, so it stays
-- whole when called alone. NULL fields (the previous release's workers, a call by hand) need the
-- claim.
CREATE OR REPLACE FUNCTION keeper_claim_needed(p_call keeper_call)
RETURNS boolean LANGUAGE sql VOLATILE AS $$
    SELECT p_call.host_recorded IS NOT TRUE OR clock_timestamp() > p_call.deadline
           OR keeper_call_older_than(p_call.request_id, interval '1 second')
$$;
COMMENT ON FUNCTION keeper_claim_needed(keeper_call) IS
    'True unless the call''s frame says its host recorded this first attempt (host_recorded), its deadline has not passed and nginx saw the call less than a second ago: whether keeper_claim has anything to do. Inlined into the IF that every operation''s function opens with.';
