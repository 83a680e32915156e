//! A deterministic force-directed layout (Fruchterman–Reingold): edges pull, nodes
//! push nodes near them (a grid of cells limits repulsion to neighbouring cells, so
//! a step costs O(nodes + edges)), a weak pull to the centre keeps components
//! together, and the step size cools to zero. Groups (folders) start in clusters.

/// Strength of the pull to the centre (at the layout's radius, in units of `k`).
const GRAVITY: f64 = 2.0;

/// Positions of `n` nodes joined by `edges` (`(a, b, weight)`), nodes of one group
/// starting next to each other. Coordinates are scaled into [-1000, 1000].
pub fn layout(n: usize, edges: &[(usize, usize, f64)], groups: &[usize]) -> Vec<(f64, f64)> {
    if n == 0 {
        return Vec::new();
    }
    if n == 1 {
        return vec![(0.0, 0.0)];
    }
    let k = 10.0f64;
    let mut pos = initial(n, groups, k);
    let iterations = match n {
        0..=500 => 300,
        501..=3000 => 150,
        _ => 80,
    };
    let cell = 2.5 * k;
    let cutoff2 = cell * cell;
    let spread = (n as f64).sqrt() * k;
    let mut disp = vec![(0.0f64, 0.0f64); n];
    let mut grid: std::collections::HashMap<(i64, i64), Vec<usize>> =
        std::collections::HashMap::new();
    for it in 0..iterations {
        let temp = (spread * 0.1 + k) * (1.0 - it as f64 / iterations as f64);
        for d in disp.iter_mut() {
            *d = (0.0, 0.0);
        }
        grid.clear();
        let key = |p: (f64, f64)| ((p.0 / cell).floor() as i64, (p.1 / cell).floor() as i64);
        for (i, &p) in pos.iter().enumerate() {
            grid.entry(key(p)).or_default().push(i);
        }
        // Repulsion from nodes in the 3x3 neighbouring cells.
        for i in 0..n {
            let (cx, cy) = key(pos[i]);
            for gx in cx - 1..=cx + 1 {
                for gy in cy - 1..=cy + 1 {
                    let Some(cell_nodes) = grid.get(&(gx, gy)) else {
                        continue;
                    };
                    for &j in cell_nodes {
                        if j == i {
                            continue;
                        }
                        let mut dx = pos[i].0 - pos[j].0;
                        let mut dy = pos[i].1 - pos[j].1;
                        let mut d2 = dx * dx + dy * dy;
                        if d2 > cutoff2 {
                            continue;
                        }
                        if d2 < 1e-6 {
                            // Same spot: push apart along a direction fixed by the pair.
                            let a = (i * 7 + j * 13) as f64;
                            dx = a.cos() * 0.01;
                            dy = a.sin() * 0.01;
                            d2 = 1e-4;
                        }
                        let f = k * k / d2;
                        disp[i].0 += dx * f;
                        disp[i].1 += dy * f;
                    }
                }
            }
        }
        // Attraction along edges.
        for &(a, b, w) in edges {
            if a == b || a >= n || b >= n {
                continue;
            }
            let dx = pos[a].0 - pos[b].0;
            let dy = pos[a].1 - pos[b].1;
            let d = (dx * dx + dy * dy).sqrt().max(1e-3);
            // d²/k, heavier edges pulling a little harder.
            let f = d / k * (1.0 + w.max(1.0).ln() * 0.5);
            disp[a].0 -= dx * f;
            disp[a].1 -= dy * f;
            disp[b].0 += dx * f;
            disp[b].1 += dy * f;
        }
        for i in 0..n {
            // Gravity towards the centre.
            disp[i].0 -= pos[i].0 * GRAVITY * k / spread;
            disp[i].1 -= pos[i].1 * GRAVITY * k / spread;
            let (dx, dy) = disp[i];
            let len = (dx * dx + dy * dy).sqrt();
            if len > 0.0 {
                let step = len.min(temp);
                pos[i].0 += dx / len * step;
                pos[i].1 += dy / len * step;
            }
        }
    }
    normalise(&mut pos);
    pos
}

/// Group centres on a golden-angle spiral (sized by group), members on a small
/// spiral around their centre.
fn initial(n: usize, groups: &[usize], k: f64) -> Vec<(f64, f64)> {
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    let mut members: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for i in 0..n {
        members
            .entry(groups.get(i).copied().unwrap_or(0))
            .or_default()
            .push(i);
    }
    let mut pos = vec![(0.0, 0.0); n];
    let mut placed = 0usize;
    for (gi, (_, list)) in members.iter().enumerate() {
        // Centres further out the more nodes came before.
        let r = (placed as f64 + list.len() as f64 / 2.0).sqrt() * k * 1.2;
        let a = gi as f64 * golden;
        let (cx, cy) = (r * a.cos(), r * a.sin());
        for (j, &i) in list.iter().enumerate() {
            let rr = (j as f64 + 0.5).sqrt() * k * 0.6;
            let aa = j as f64 * golden;
            pos[i] = (cx + rr * aa.cos(), cy + rr * aa.sin());
        }
        placed += list.len();
    }
    pos
}

fn normalise(pos: &mut [(f64, f64)]) {
    let (mut minx, mut maxx, mut miny, mut maxy) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in pos.iter() {
        minx = minx.min(x);
        maxx = maxx.max(x);
        miny = miny.min(y);
        maxy = maxy.max(y);
    }
    let span = (maxx - minx).max(maxy - miny).max(1e-9);
    let (cx, cy) = ((minx + maxx) / 2.0, (miny + maxy) / 2.0);
    for p in pos.iter_mut() {
        p.0 = ((p.0 - cx) / span * 2000.0 * 10.0).round() / 10.0;
        p.1 = ((p.1 - cy) / span * 2000.0 * 10.0).round() / 10.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connected_nodes_end_closer_than_unconnected_ones() {
        // Two triangles joined by nothing, in the same group.
        let edges = [
            (0, 1, 1.0),
            (1, 2, 1.0),
            (2, 0, 1.0),
            (3, 4, 1.0),
            (4, 5, 1.0),
            (5, 3, 1.0),
        ];
        let pos = layout(6, &edges, &[0; 6]);
        let d = |a: usize, b: usize| {
            ((pos[a].0 - pos[b].0).powi(2) + (pos[a].1 - pos[b].1).powi(2)).sqrt()
        };
        let inside = d(0, 1).max(d(1, 2)).max(d(3, 4));
        let across = d(0, 3).min(d(1, 4)).min(d(2, 5));
        assert!(inside < across, "inside {inside} across {across}: {pos:?}");
        assert!(
            pos.iter()
                .all(|p| p.0.abs() <= 1000.0 && p.1.abs() <= 1000.0)
        );
        // Deterministic.
        assert_eq!(pos, layout(6, &edges, &[0; 6]));
    }

    #[test]
    fn no_two_nodes_share_a_spot() {
        let pos = layout(50, &[], &[0; 50]);
        for i in 0..50 {
            for j in i + 1..50 {
                assert!(pos[i] != pos[j]);
            }
        }
    }
}
