import type { Issue } from '../../contract/errors';
import type { ReplayServices } from '../replay/module';
import type { PlaybookCatalog } from './playbooks';

/**
 * Where the automation family meets the replay family's services (issue 8). A playbook node's
 * version must exist in the scope and be runnable in the node's mode (strict unless it says guided)
 * with the node's inputs as parameters: the replay family decides, so validation and the
 * playbook run agree. References in inputs are checked as present values (they resolve at run time).
 */
export function playbookCatalogFrom(replay: ReplayServices): PlaybookCatalog {
  return {
    async issues(ref, node) {
      const r = await replay.checkRunnable(ref, { playbook_id: node.playbook_id!, version: node.version ?? null, mode: node.mode ?? 'strict', params: node.inputs });
      return r.issues.map((i): Issue => {
        const [head, ...rest] = i.path.split('.');
        if (head === 'params') return { path: ['inputs', ...rest].join('.'), message: i.message };
        if (head === 'steps') return { path: 'playbook_id', message: `playbook '${node.playbook_id}' v${node.version} step ${rest.join('.')}: ${i.message}` };
        if (head === 'version') return { path: 'version', message: i.message };
        return { path: 'playbook_id', message: i.message };
      });
    },
    hostWait: (ref, runKey) => replay.pendingHostStep(ref, runKey),
  };
}
