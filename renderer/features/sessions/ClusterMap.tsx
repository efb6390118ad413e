/**
 * The topic clusters as a scatter of their items at the engine's 2-D `layout`: colour is the
 * cluster, the marker's shape is the bucket. Hovering (or focusing) a point shows its text.
 */
import { useMemo, useState } from 'react';
import { useSessions } from '../../stores/stores-context';
import { useT } from '../../use-t';
import { BUCKETS, clusterColour, mapPoints, markerPath, type MapPoint } from './cluster-map';
import { MadeByBadge } from './parts';

const WIDTH = 760;
const HEIGHT = 440;

export function ClusterMap() {
  const t = useT();
  const clusters = useSessions((s) => s.analysis?.clusters);
  const points = useMemo(() => mapPoints(clusters ?? [], WIDTH, HEIGHT, 28), [clusters]);
  const [hover, setHover] = useState<MapPoint | null>(null);
  if (!clusters) return <p className="muted">{t('sessions.analyzing')}</p>;
  return (
    <div className="cluster-map-wrap">
      <div className="panel cluster-map" data-testid="cluster-map" data-points={points.length}>
        <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={t('sessions.clusterMap')}>
          <rect className="cluster-map-bg" x={0} y={0} width={WIDTH} height={HEIGHT} rx={6} />
          {points.map((p) => (
            <path
              key={p.itemId}
              d={markerPath(p.bucket, hover?.itemId === p.itemId ? 9 : 7)}
              transform={`translate(${p.x.toFixed(1)} ${p.y.toFixed(1)})`}
              fill={clusterColour(p.cluster)}
              className="cluster-point"
              tabIndex={0}
              onMouseEnter={() => setHover(p)}
              onMouseLeave={() => setHover(null)}
              onFocus={() => setHover(p)}
              onBlur={() => setHover(null)}
              data-testid="cluster-point"
              data-cluster={p.clusterId}
              data-bucket={p.bucket}
            >
              <title>{`${p.speaker ?? ''} ${p.messageIds.join(', ')}: ${p.text}`}</title>
            </path>
          ))}
        </svg>
        {hover && (
          <div
            className="map-tip"
            role="tooltip"
            data-testid="cluster-tip"
            style={{ left: `${(hover.x / WIDTH) * 100}%`, top: `${(hover.y / HEIGHT) * 100}%`, transform: hover.x > WIDTH * 0.6 ? 'translate(-100%, 12px)' : 'translate(0, 12px)' }}
          >
            <div className="muted small">
              {hover.speaker} · <code>{hover.messageIds.join(', ')}</code> · {t(`bucket.${hover.bucket}`)}
            </div>
            {hover.text}
          </div>
        )}
      </div>
      <aside className="panel legend-panel" aria-label={t('sessions.legend')} data-testid="cluster-legend">
        <h3>{t('sessions.topics')}</h3>
        <ul className="plain-list">
          {clusters.map((c, i) => (
            <li key={c.cluster_id} className="legend-row" data-testid="cluster-legend-item">
              <span className="swatch" style={{ background: clusterColour(i) }} aria-hidden="true" />
              <span>
                <strong>{c.topic_label}</strong> <span className="badge">{c.items.length}</span> <MadeByBadge extractor={c.extractor} />
                <div className="muted small">
                  {t(`bucket.${c.dominant_bucket}`)} · {t('sessions.coherence')} {c.coherence.toFixed(2)}
                  {c.extraction_candidate && ` · ${t('sessions.candidate')}`}
                </div>
              </span>
            </li>
          ))}
        </ul>
        <h3>{t('sessions.buckets')}</h3>
        <ul className="plain-list">
          {BUCKETS.map((b) => (
            <li key={b} className="legend-row">
              <svg width={18} height={18} viewBox="-9 -9 18 18" aria-hidden="true">
                <path d={markerPath(b, 6)} className="legend-marker" />
              </svg>
              {t(`bucket.${b}`)}
            </li>
          ))}
        </ul>
      </aside>
    </div>
  );
}
