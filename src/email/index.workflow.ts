/**
 * TODO face header
 */
export { STATUS } from './email-status';
