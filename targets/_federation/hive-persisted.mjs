// Hive Gateway's persisted documents as the Node hive-gateway targets configure them (a
// module of its own: the Bun and Deno variants share hive-runtime.mjs without Node's fs).
import { documentIdOf, persistedDocumentsFromEnv } from '../_node/server-common.mjs';

// Persisted documents by id only when a scenario asks (GQLBENCH_PERSISTED_DOCUMENTS): the
// runtime's `persistedDocuments` in its custom-store form (beside the Hive CDN one), its
// documents from gqlbench's manifest, the id read from `documentId`. Arbitrary documents
// stay allowed, so readiness checks and plain queries still work.
export function hivePersistedDocuments() {
  const documents = persistedDocumentsFromEnv();
  if (!documents) return {};
  return {
    persistedDocuments: {
      getPersistedOperation: (id) => documents.get(id) ?? null,
      extractPersistedOperationId: documentIdOf,
      allowArbitraryDocuments: true,
    },
  };
}
