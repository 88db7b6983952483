import type { MessagingUser } from '@mailroom/core';
import type { DevCredentials } from '../credentials';
import type { PlanLimits } from '../plans';

/**
 * The dev server's one messaging user, every field of the spec's table: its real tokens, and the
 * limits of the plan the server runs with (the ones the enqueue enforces).
 */
export function messagingUser(credentials: DevCredentials, plan: PlanLimits): MessagingUser {
  const { defaultRetries: _defaultRetries, type, prod_pack_enabled, ...limits } = plan;
  return {
    customer_id: credentials.managementUser,
    id: credentials.userId,
    token: credentials.token,
    read_only_token: credentials.readOnlyToken,
    active: true,
    state: 'active',
    last_plan_upgrade_time: credentials.createdAt,
    ...limits,
    prod_pack_enabled,
    prometheus_enabled: 'false',
    type,
    region: 'us-east-1',
    reserved_type: '',
    reserved_price: 0,
    created_by: credentials.managementUser,
    creation_time: credentials.createdAt,
    deletion_time: 0,
  };
}
