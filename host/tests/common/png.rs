//! Just enough PNG to look at a browser's screenshot: 8-bit RGB or RGBA,
//! not interlaced (what Chromium writes), decoded to RGBA pixels.

pub struct Image {
    pub width: u32,
    pub height: u32,
    /// RGBA, row by row.
    pub pixels: Vec<[u8; 4]>,
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let p = a as i16 + b as i16 - c as i16;
    let (pa, pb, pc) = (
        (p - a as i16).abs(),
        (p - b as i16).abs(),
        (p - c as i16).abs(),
    );
    if pa <= pb && pa <= pc {
        a
    } else if pb <= pc {
        b
    } else {
        c
    }
}

pub fn decode(bytes: &[u8]) -> Result<Image, String> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    if !bytes.starts_with(SIGNATURE) {
        return Err("not a PNG file".into());
    }
    let mut at = SIGNATURE.len();
    let (mut width, mut height, mut channels) = (0u32, 0u32, 0usize);
    let mut data = Vec::new();
    while at + 8 <= bytes.len() {
        let len = be32(&bytes[at..]) as usize;
        let kind = &bytes[at + 4..at + 8];
        let body = bytes
            .get(at + 8..at + 8 + len)
            .ok_or("a chunk runs past the end")?;
        match kind {
            b"IHDR" => {
                width = be32(body);
                height = be32(&body[4..]);
                let (depth, colour, interlace) = (body[8], body[9], body[12]);
                channels = match colour {
                    2 => 3,
                    6 => 4,
                    other => return Err(format!("colour type {other} is not handled")),
                };
                if depth != 8 || interlace != 0 {
                    return Err(format!(
                        "bit depth {depth}, interlace {interlace} not handled"
                    ));
                }
            }
            b"IDAT" => data.extend_from_slice(body),
            b"IEND" => break,
            _ => {}
        }
        at += 12 + len;
    }
    let mut raw = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::ZlibDecoder::new(&data[..]), &mut raw)
        .map_err(|e| format!("image data: {e}"))?;
    let stride = width as usize * channels;
    if raw.len() != (stride + 1) * height as usize {
        return Err(format!(
            "{} bytes of image data for {width}x{height}",
            raw.len()
        ));
    }
    let mut out: Vec<u8> = Vec::with_capacity(stride * height as usize);
    for y in 0..height as usize {
        let line = &raw[y * (stride + 1)..(y + 1) * (stride + 1)];
        let (filter, line) = (line[0], &line[1..]);
        let start = out.len();
        for x in 0..stride {
            let a = if x >= channels {
                out[start + x - channels]
            } else {
                0
            };
            let b = if y > 0 { out[start + x - stride] } else { 0 };
            let c = if y > 0 && x >= channels {
                out[start + x - stride - channels]
            } else {
                0
            };
            let v = match filter {
                0 => line[x],
                1 => line[x].wrapping_add(a),
                2 => line[x].wrapping_add(b),
                3 => line[x].wrapping_add(((a as u16 + b as u16) / 2) as u8),
                4 => line[x].wrapping_add(paeth(a, b, c)),
                f => return Err(format!("filter {f}")),
            };
            out.push(v);
        }
    }
    let pixels = out
        .chunks(channels)
        .map(|p| [p[0], p[1], p[2], if channels == 4 { p[3] } else { 255 }])
        .collect();
    Ok(Image {
        width,
        height,
        pixels,
    })
}
