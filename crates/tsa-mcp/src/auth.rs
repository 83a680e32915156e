//! Bearer-token authentication of the HTTP transport. A server with a token answers
//! a request only when it carries `Authorization: Bearer <token>`; any other request
//! (no header, a wrong token, two `Authorization` headers, or a query string, where a
//! token must never travel) gets `401` with `WWW-Authenticate: Bearer` and an empty
//! body, whatever its path. The token is kept only as its BLAKE3 digest, and the
//! digest of what a request presents is compared with it in constant time, so
//! neither the token's bytes nor its length show in response times. Nothing here
//! writes the token anywhere: errors name the file or variable, never its content.

use std::io::Read;
use std::path::Path;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::header::{AUTHORIZATION, HeaderValue, WWW_AUTHENTICATE};
use hyper::{Request, Response, StatusCode};

/// The environment variable that may hold the token (`--auth-token-file` wins).
pub const TOKEN_ENV: &str = "TSA_AUTH_TOKEN";
/// A token file holds the token alone: anything larger is refused unread.
pub const MAX_TOKEN_FILE_BYTES: u64 = 4096;
/// The shortest token accepted (`openssl rand -hex 32` gives 64 characters).
pub const MIN_TOKEN_CHARS: usize = 16;

/// Why a token cannot be used. No variant carries the token's text.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("cannot read the token file {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("the token file {0} is not a regular file")]
    NotAFile(String),
    #[error(
        "the token file {0} is larger than {MAX_TOKEN_FILE_BYTES} bytes; it must hold the token alone"
    )]
    TooLarge(String),
    #[error("the token from {0} is not UTF-8 text")]
    NotText(String),
    #[error("the token from {0} is empty")]
    Empty(String),
    #[error(
        "the token from {0} must be printable ASCII without spaces (as it is sent in an HTTP header)"
    )]
    Charset(String),
    #[error(
        "the token from {0} is shorter than {MIN_TOKEN_CHARS} characters; use a random one, e.g. `openssl rand -hex 32`"
    )]
    TooShort(String),
}

/// The token a server accepts, kept as its BLAKE3 digest only.
#[derive(Clone)]
pub struct Token {
    digest: [u8; 32],
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

impl Token {
    /// A token from its text (`from`: where it came from, for errors). Surrounding
    /// whitespace, a file's trailing newline included, is not part of it.
    pub fn new(text: &str, from: &str) -> Result<Token, TokenError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(TokenError::Empty(from.to_owned()));
        }
        if !text.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(TokenError::Charset(from.to_owned()));
        }
        if text.len() < MIN_TOKEN_CHARS {
            return Err(TokenError::TooShort(from.to_owned()));
        }
        Ok(Token {
            digest: *blake3::hash(text.as_bytes()).as_bytes(),
        })
    }

    /// The token in `path`: a regular file (a symlink to one is followed: secrets
    /// are often mounted so) of at most [`MAX_TOKEN_FILE_BYTES`]. It may live
    /// anywhere, outside the project too: it is the operator's secret.
    pub fn from_file(path: &Path) -> Result<Token, TokenError> {
        let shown = path.display().to_string();
        let read = |source| TokenError::Read {
            path: shown.clone(),
            source,
        };
        let meta = std::fs::metadata(path).map_err(read)?;
        if !meta.is_file() {
            return Err(TokenError::NotAFile(shown));
        }
        if meta.len() > MAX_TOKEN_FILE_BYTES {
            return Err(TokenError::TooLarge(shown));
        }
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_TOKEN_FILE_BYTES + 1).read_to_end(&mut bytes))
            .map_err(read)?;
        if bytes.len() as u64 > MAX_TOKEN_FILE_BYTES {
            return Err(TokenError::TooLarge(shown));
        }
        let text = String::from_utf8(bytes).map_err(|_| TokenError::NotText(shown.clone()))?;
        Token::new(&text, &shown)
    }

    /// The token of `tsa mcp --http`: from `file` (`--auth-token-file`), else from
    /// `TSA_AUTH_TOKEN` when it is set (set and empty is an error, not "no token").
    pub fn load(file: Option<&Path>) -> Result<Option<Token>, TokenError> {
        if let Some(path) = file {
            return Token::from_file(path).map(Some);
        }
        match std::env::var_os(TOKEN_ENV) {
            None => Ok(None),
            Some(v) => {
                let text = v
                    .into_string()
                    .map_err(|_| TokenError::NotText(TOKEN_ENV.to_owned()))?;
                Token::new(&text, TOKEN_ENV).map(Some)
            }
        }
    }

    /// Whether `presented` is the token (constant time over the digests).
    fn matches(&self, presented: &[u8]) -> bool {
        constant_time_eq::constant_time_eq_32(blake3::hash(presented).as_bytes(), &self.digest)
    }

    /// Whether `req` may be served: exactly one `Authorization: Bearer <token>`
    /// header with this token, and no query string.
    pub fn admits<B>(&self, req: &Request<B>) -> bool {
        if req.uri().query().is_some() {
            return false;
        }
        let mut values = req.headers().get_all(AUTHORIZATION).iter();
        let (Some(value), None) = (values.next(), values.next()) else {
            return false;
        };
        match bearer(value.as_bytes()) {
            Some(presented) => self.matches(presented),
            None => false,
        }
    }
}

/// The credentials of an `Authorization` value of the Bearer scheme (the scheme's
/// name in any case, RFC 6750).
fn bearer(value: &[u8]) -> Option<&[u8]> {
    let (scheme, rest) = value.split_at_checked(6)?;
    if !scheme.eq_ignore_ascii_case(b"bearer") || rest.first() != Some(&b' ') {
        return None;
    }
    Some(rest.trim_ascii())
}

/// `401 Unauthorized`, `WWW-Authenticate: Bearer`, and nothing else.
pub fn unauthorized<E>() -> Response<BoxBody<Bytes, E>> {
    let mut r = Response::new(
        Full::new(Bytes::new())
            .map_err(|never| match never {})
            .boxed(),
    );
    *r.status_mut() = StatusCode::UNAUTHORIZED;
    r.headers_mut()
        .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "0123456789abcdef0123456789abcdef";

    fn req(auth: &[&str], uri: &str) -> Request<()> {
        let mut b = Request::builder().uri(uri);
        for a in auth {
            b = b.header(AUTHORIZATION, *a);
        }
        b.body(()).unwrap()
    }

    #[test]
    fn admits_only_the_one_right_bearer_header() {
        let t = Token::new(GOOD, "test").unwrap();
        let right = format!("Bearer {GOOD}");
        assert!(t.admits(&req(&[&right], "/mcp")));
        assert!(t.admits(&req(&[&format!("bearer  {GOOD} ")], "/mcp")));
        assert!(!t.admits(&req(&[], "/mcp")));
        assert!(!t.admits(&req(&[&format!("Bearer {GOOD}x")], "/mcp")));
        assert!(!t.admits(&req(&[&format!("Basic {GOOD}")], "/mcp")));
        assert!(!t.admits(&req(&[&format!("Bearer{GOOD}")], "/mcp")));
        assert!(!t.admits(&req(&["Bearer"], "/mcp")));
        assert!(!t.admits(&req(&[&right, &right], "/mcp")));
        assert!(!t.admits(&req(&[&right], &format!("/mcp?access_token={GOOD}"))));
        assert!(!t.admits(&req(&[&right], "/mcp?")));
    }

    #[test]
    fn tokens_are_checked_and_never_shown() {
        assert!(Token::new(&format!("\n {GOOD}\r\n"), "x").is_ok());
        for bad in [
            "",
            "  \n",
            "abc123",
            "with space inside 0123456789",
            "tökenwithumlaut0123456789",
        ] {
            let e = Token::new(bad, "the test").unwrap_err().to_string();
            assert!(e.contains("the test"), "{e}");
            if !bad.trim().is_empty() {
                assert!(!e.contains(bad.trim()), "{e}");
            }
        }
        let t = Token::new(GOOD, "x").unwrap();
        assert!(!format!("{t:?}").contains(GOOD));
    }

    #[test]
    fn token_files_are_read_with_a_size_limit() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("token");
        std::fs::write(&file, format!("{GOOD}\n")).unwrap();
        let t = Token::from_file(&file).unwrap();
        assert!(t.admits(&req(&[&format!("Bearer {GOOD}")], "/mcp")));
        std::fs::write(&file, vec![b'a'; MAX_TOKEN_FILE_BYTES as usize + 1]).unwrap();
        assert!(matches!(
            Token::from_file(&file),
            Err(TokenError::TooLarge(_))
        ));
        assert!(matches!(
            Token::from_file(dir.path()),
            Err(TokenError::NotAFile(_))
        ));
        assert!(matches!(
            Token::from_file(&dir.path().join("missing")),
            Err(TokenError::Read { .. })
        ));
        std::fs::write(&file, [0xff, 0xfe, b'a']).unwrap();
        assert!(matches!(
            Token::from_file(&file),
            Err(TokenError::NotText(_))
        ));
    }
}
