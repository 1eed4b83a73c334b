export * from './kueue';
export * from './kueue-manifests';
