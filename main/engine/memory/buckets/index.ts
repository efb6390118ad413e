/**
 * Track A (docs/SPEC.md#track-a-semantic-buckets-and-topic-clusters): semantic buckets and topic
 * clusters.
 */
export { runTrackA, runTrackARules, type TrackAOptions, type TrackAResult } from './track-a.js';
export { classifyText, type Classification } from './rules.js';
export { segmentMessage } from './items.js';
export { BUCKET_WEIGHT, DISTANCE_THRESHOLD, MAX_HAC_ITEMS, clusterPriority, isExtractionCandidate } from './clusters.js';
export { BATCH_SIZE as LLM_BATCH_SIZE } from './llm-classifier.js';
