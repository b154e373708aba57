//! The JSON bodies as serde types, for the framework variants that answer with their
//! framework's `Json` (axum, actix-web) the way their users do. A test serialises each one
//! and compares it byte for byte with [`body`](crate::body).

use serde::Serialize;

/// `{"message":…}`: `/api/hello` and an authorised `/api/private`.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Message {
    /// The greeting.
    pub message: &'static str,
}

/// `{"error":…}`: an unauthorised `/api/private`.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ErrorBody {
    /// What went wrong.
    pub error: &'static str,
}

/// `{"code":200,"msg":…,"data":…}` and its shorter forms: the scenarios' bodies.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Outcome<D: Serialize> {
    /// Always 200.
    pub code: u16,
    /// A word about the scenario, where it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub msg: Option<&'static str>,
    /// The scenario's result, where it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<D>,
}

/// The greeting of `/api/hello` and `/api/private`.
pub const HELLO: Message = Message {
    message: "Hello World",
};
/// The error of an unauthorised `/api/private`.
pub const UNAUTHORIZED: ErrorBody = ErrorBody {
    error: "Unauthorized",
};
/// The body of `/api/async`.
pub const ASYNC: Outcome<&str> = Outcome {
    code: 200,
    msg: Some("success"),
    data: Some("async"),
};
/// The body of `/api/nexttick`.
pub const NEXTTICK: Outcome<()> = Outcome {
    code: 200,
    msg: Some("nexttick"),
    data: None,
};
/// The body of `/api/timer`.
pub const TIMER: Outcome<()> = Outcome {
    code: 200,
    msg: Some("timer"),
    data: None,
};

/// The body of `/api/sync` and `/api/sync-offload` for the computed `sum`.
pub const fn sum(sum: u64) -> Outcome<u64> {
    Outcome {
        code: 200,
        msg: None,
        data: Some(sum),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body;

    fn json<T: Serialize>(v: &T) -> Vec<u8> {
        serde_json::to_vec(v).unwrap()
    }

    #[test]
    fn serialise_to_the_contracts_bytes() {
        assert_eq!(json(&HELLO), body::HELLO_JSON);
        assert_eq!(json(&UNAUTHORIZED), body::UNAUTHORIZED_JSON);
        assert_eq!(json(&ASYNC), body::ASYNC_JSON);
        assert_eq!(json(&NEXTTICK), body::NEXTTICK_JSON);
        assert_eq!(json(&TIMER), body::TIMER_JSON);
        assert_eq!(json(&sum(49_999_995_000_000)), body::SYNC_JSON);
    }
}
