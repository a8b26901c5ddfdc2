# The throwaway servers CTest starts for this build tree, each named from the tree's hash so
# that two trees on one machine never share one.
string(SHA1 thm_build_hash "${CMAKE_BINARY_DIR}")
string(SUBSTRING "${thm_build_hash}" 0 10 thm_build_hash)

# PostgreSQL (fixture `postgres`, stores/postgres) on a unix socket under /tmp: short, since
# socket paths are limited to 107 bytes. Every test that needs it reads THM_POSTGRES.
set(THM_PG_CLUSTER ${PROJECT_SOURCE_DIR}/scripts/pg_test_cluster)
set(THM_PG_DIR "/tmp/thm-pg-${thm_build_hash}")
set(THM_PG_PORT 54329)
set(THM_POSTGRES_CONNINFO "host=${THM_PG_DIR} port=${THM_PG_PORT} user=thm dbname=thm")

# A primary and a streaming standby (kit/scripts/pg_replicated_cluster), once synchronous and
# once asynchronous (fixtures `postgres_pair_sync`, `postgres_pair_async`,
# kit/conformance/harnesses); each node N listens on its port + N.
set(THM_PG_PAIR_SYNC_DIR "/tmp/thm-pg-pair-sync-${thm_build_hash}")
set(THM_PG_PAIR_SYNC_PORT 54351)
set(THM_PG_PAIR_ASYNC_DIR "/tmp/thm-pg-pair-async-${thm_build_hash}")
set(THM_PG_PAIR_ASYNC_PORT 54353)
math(EXPR thm_pair_standby_port "${THM_PG_PAIR_SYNC_PORT} + 1")
set(THM_POSTGRES_PAIR_CONNINFO
    "host=${THM_PG_PAIR_SYNC_DIR},${THM_PG_PAIR_SYNC_DIR} port=${THM_PG_PAIR_SYNC_PORT},${thm_pair_standby_port} user=thm dbname=thm target_session_attrs=read-write")

# A three-member etcd cluster (kit/scripts/etcd_cluster, fixture `etcd`, stores/etcd) on
# loopback TCP; member N serves clients on THM_ETCD_PORT + 2N and its peers on the port
# above. TCP ports are shared by every tree on the machine, so each tree takes its own 8
# from its hash, in 20000–29999, below the ephemeral ports.
set(THM_ETCD_DIR "/tmp/thm-etcd-${thm_build_hash}")
string(SUBSTRING "${thm_build_hash}" 0 3 thm_etcd_slot)
math(EXPR THM_ETCD_PORT "20000 + (0x${thm_etcd_slot} % 1250) * 8")
