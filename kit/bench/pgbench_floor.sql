-- The PostgreSQL floor as pgbench runs it (store_bench.cpp, `store_enqueue.postgres/pgbench`):
-- the raw insert of `store_enqueue.postgres/floor`, one per transaction, with a fresh key
-- and rows of the same sizes, so that the floor does not depend on thm's own client code.
\set key random(1, 9000000000000000000)
INSERT INTO floor_turn VALUES (convert_to('eng/-/' || :key, 'UTF8'), '\x616c696365'::bytea,
  '\x626f62'::bytea, convert_to('@bob please pick up step ' || :key || ' of the rollout', 'UTF8'), 1)
  ON CONFLICT DO NOTHING;
