// Node faults (PROTOCOL.md §4, EQ-28…EQ-30) through a cluster script: kit/scripts/etcd_cluster
// and kit/scripts/restate_cluster take the same commands (leader, kill N, restart N, pause N,
// resume N, recover, restart-all) on a cluster of three nodes in DIR.
import { execFile } from 'node:child_process';

/**
 * A function that runs `script COMMAND DIR [ARGS]` and resolves to its output, without this
 * process's libfaketime (the suite may skew an adapter's clock; never its servers'), bounded
 * below the suite's 30 s per answer.
 */
export function clusterScript(script, dir) {
  const name = script.split('/').pop();
  return (command, ...args) => {
    const env = { ...process.env };
    for (const key of Object.keys(env)) {
      if (key === 'LD_PRELOAD' || key.startsWith('FAKETIME')) delete env[key];
    }
    return new Promise((resolve, reject) => {
      execFile(script, [command, dir, ...args.map(String)], { env, timeout: 25000 },
        (error, stdout, stderr) => {
          if (error) reject(new Error(`${name} ${command}: ${stderr.trim() || error.message}`));
          else resolve(stdout.trim());
        });
    });
  };
}

/**
 * The node operations of an adapter whose store is a cluster of three nodes, each served by
 * `cluster` (a clusterScript). Mix them into the adapter's class:
 * `Object.assign(MyAdapter.prototype, nodeOperations(cluster))`.
 */
export const nodeOperations = (cluster) => ({
  op_node_count: () => ({ count: 3 }),
  op_leader: async () => ({ node: Number(await cluster('leader')) }),
  op_kill_node: async ({ node }) => { await cluster('kill', node); },
  op_restart_node: async ({ node }) => { await cluster('restart', node); },
  op_pause_node: async ({ node }) => { await cluster('pause', node); },
  op_resume_node: async ({ node }) => { await cluster('resume', node); },
  op_recover: async () => { await cluster('recover'); },
});
