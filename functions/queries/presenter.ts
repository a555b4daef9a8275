import type { SavedQuery } from '../core/queries';

export function queryResponse(query: SavedQuery) {
  return {
    query_id: query.queryId,
    name: query.name,
    description: query.description,
    query_sql: query.querySql,
    owner: query.ownerHandle,
    is_private: query.isPrivate,
    is_archived: query.isArchived,
    is_unsaved: false,
    version: query.version,
    query_engine: 'medium',
    tags: query.tags,
    parameters: query.parameters,
    created_at: query.createdAt,
    updated_at: query.updatedAt,
  };
}

export function queryListItem(query: SavedQuery) {
  return {
    id: query.queryId,
    name: query.name,
    description: query.description,
    owner: query.ownerHandle,
    tags: query.tags,
    is_private: query.isPrivate,
    is_archived: query.isArchived,
    version: query.version,
    created_at: query.createdAt,
    updated_at: query.updatedAt,
  };
}
