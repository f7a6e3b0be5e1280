//! The read-only guard: an SDK interceptor that records every operation the clients send and refuses
//! any that is not a Describe, List or Get.

use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::interceptors::context::{
    BeforeDeserializationInterceptorContextMut, BeforeSerializationInterceptorContextRef,
};
use aws_smithy_runtime_api::client::interceptors::Intercept;
use aws_smithy_runtime_api::client::orchestrator::Metadata;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::body::SdkBody;
use aws_smithy_types::config_bag::ConfigBag;

/// Whether an operation name is one of the read-only kinds ecs-gpu may send.
pub fn is_read_only(operation: &str) -> bool {
    ["Describe", "List", "Get"]
        .iter()
        .any(|p| operation.starts_with(p))
}

/// Records each operation as `service:Operation` before it is sent, and fails it unless it reads.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReadOnly {
    seen: Arc<Mutex<Vec<String>>>,
}

impl ReadOnly {
    /// The operations sent so far, in order, as `Operation` names.
    pub(crate) fn operations(&self) -> Vec<String> {
        self.seen.lock().map(|v| v.clone()).unwrap_or_default()
    }
}

impl Intercept for ReadOnly {
    fn name(&self) -> &'static str {
        "ecs-gpu read-only guard"
    }

    fn read_before_serialization(
        &self,
        _context: &BeforeSerializationInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let op = cfg
            .load::<Metadata>()
            .map_or_else(|| "unknown".to_string(), |m| m.name().to_string());
        if let Ok(mut seen) = self.seen.lock() {
            seen.push(op.clone());
        }
        if is_read_only(&op) {
            Ok(())
        } else {
            Err(
                format!("ecs-gpu refuses to send `{op}`: it only reads (Describe, List, Get)")
                    .into(),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ecs_gpu_diagnose::api::Call;

    #[test]
    fn every_call_the_diagnosis_makes_is_read_only() {
        for call in Call::ALL {
            assert!(is_read_only(call.operation()), "{call}");
            assert!(call.iam_action().contains(':'), "{call}");
        }
        for write in [
            "CreateCluster",
            "UpdateService",
            "RunTask",
            "PutAttributes",
            "SetDesiredCapacity",
        ] {
            assert!(!is_read_only(write), "{write}");
        }
    }

    /// A write is refused by the guard before anything is sent: the endpoint is a closed loopback
    /// port, so a request that got through would fail with a dispatch error instead.
    #[tokio::test]
    async fn the_guard_refuses_a_write_before_sending_it() {
        let guard = ReadOnly::default();
        let conf = aws_sdk_ecs::Config::builder()
            .behavior_version(aws_sdk_ecs::config::BehaviorVersion::latest())
            .region(aws_sdk_ecs::config::Region::new("us-east-1"))
            .endpoint_url("http://127.0.0.1:1")
            .credentials_provider(aws_sdk_ecs::config::Credentials::for_tests())
            .interceptor(guard.clone())
            .build();
        let ecs = aws_sdk_ecs::Client::from_conf(conf);
        let err = ecs
            .create_cluster()
            .cluster_name("x")
            .send()
            .await
            .expect_err("refused");
        let text = format!("{:?}", err);
        assert!(
            text.contains("ecs-gpu refuses to send `CreateCluster`"),
            "{text}"
        );
        assert!(
            matches!(err, aws_sdk_ecs::error::SdkError::ConstructionFailure(_)),
            "{text}"
        );
        assert_eq!(guard.operations(), ["CreateCluster"]);
    }
}

/// The most one response may hold. A DescribeContainerInstances page of 100 instances is well
/// under a megabyte; an endpoint that streams without end must not fill memory.
pub const MAX_RESPONSE_BYTES: usize = 64 * 1024 * 1024;

/// The most all the responses of one run may hold together: an endpoint that answers page after
/// page must not fill memory either.
pub const MAX_TOTAL_RESPONSE_BYTES: u64 = 256 * 1024 * 1024;

/// The text of the error a response past [`MAX_RESPONSE_BYTES`] fails with (http-body-util's
/// `Limited`).
pub(crate) const LENGTH_LIMIT: &str = "length limit exceeded";

/// The text of the error a response fails with once the run has read [`MAX_TOTAL_RESPONSE_BYTES`].
pub(crate) const TOTAL_LIMIT: &str = "total response limit exceeded";

/// Bounds every response body to [`MAX_RESPONSE_BYTES`], and all of them together to what is left
/// of the run's budget (at most [`MAX_TOTAL_RESPONSE_BYTES`]), before the SDK reads them whole.
#[derive(Debug, Clone)]
pub(crate) struct BodyLimit {
    left: Arc<AtomicU64>,
}

impl BodyLimit {
    /// A budget of `total` bytes for all the responses of the run.
    pub(crate) fn new(total: u64) -> Self {
        BodyLimit {
            left: Arc::new(AtomicU64::new(total)),
        }
    }
}

impl Intercept for BodyLimit {
    fn name(&self) -> &'static str {
        "ecs-gpu response size limit"
    }

    fn modify_before_deserialization(
        &self,
        context: &mut BeforeDeserializationInterceptorContextMut<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let body = std::mem::replace(context.response_mut().body_mut(), SdkBody::taken());
        *context.response_mut().body_mut() = SdkBody::from_body_1_x(Metered {
            inner: http_body_util::Limited::new(body, MAX_RESPONSE_BYTES),
            left: self.left.clone(),
        });
        Ok(())
    }
}

/// A body that takes what it yields from a budget shared by every response of the run.
struct Metered<B> {
    inner: B,
    left: Arc<AtomicU64>,
}

impl<B> http_body::Body for Metered<B>
where
    B: http_body::Body<Data = bytes::Bytes> + Unpin,
    B::Error: Into<BoxError>,
{
    type Data = bytes::Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        match Pin::new(&mut self.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                let n = frame.data_ref().map_or(0, |d| d.len() as u64);
                let taken = self.left.fetch_update(
                    AtomicOrdering::SeqCst,
                    AtomicOrdering::SeqCst,
                    |left| left.checked_sub(n),
                );
                if taken.is_err() {
                    self.left.store(0, AtomicOrdering::SeqCst);
                    return Poll::Ready(Some(Err(TOTAL_LIMIT.into())));
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(e.into()))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}
