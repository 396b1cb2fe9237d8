/**
 * The deterministic part of the email's face, for code in the workflow bundle: importing it never loads a driver.
 */
export { STATUS } from './email-status';
