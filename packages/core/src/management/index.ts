export { createManagementClient, type ManagementClient, type ManagementClientOptions } from './create-management-client';
