export { default } from './skeleton.mjs';
