//! Action outcomes: the host begins each action it was handed, reports every attempt's reply,
//! and is told what happens next (retry, go on, stop the rest of the message). The outcomes wait
//! here for the message's `BAI_RESULT` line. See [`crate::protocol::outcome`] for the rules.

use super::{Decision, Engine};
use crate::protocol::error::EngineError;
use crate::protocol::negotiation::Capability;
use crate::protocol::outcome::{
    ActionFailure, ActionReply, ActionStart, InFlight, NextStep, OutcomeStep, Recorded, SkipReason,
    failed, is_refusal, is_retriable, plain, success,
};
use crate::protocol::result::{ActionResult, ResultReport, ResultStatus};
use crate::protocol::workflow::{Workflow, WorkflowState};

/// Workflows whose queued actions must not run any more: the user stopped or refused them, or a
/// newer workflow took over. (`done` and `failed` come from the model's own lines: the actions
/// it wrote before them still run, in order.)
fn halted(state: WorkflowState) -> bool {
    matches!(
        state,
        WorkflowState::Stopped | WorkflowState::Superseded | WorkflowState::Denied
    )
}

impl Workflow {
    /// Keeps an outcome for the result line (only a workflow with result lines reports one).
    fn record(&mut self, recorded: Recorded) {
        if !self.has(Capability::ResultLines) {
            return;
        }
        let id = recorded.result.action_id;
        self.run.outcomes.retain(|r| r.result.action_id != id);
        self.run.outcomes.push(recorded);
    }
}

impl Engine {
    fn workflow_mut(&mut self, workflow_id: &str) -> Result<&mut Workflow, EngineError> {
        self.workflows
            .iter_mut()
            .find(|w| w.id == workflow_id)
            .ok_or_else(|| EngineError::UnknownWorkflow {
                workflow_id: workflow_id.to_owned(),
            })
    }

    /// The host is about to run action `action_id` of `workflow_id`, handed out by a
    /// [`Decision::Execute`]: run it, skip it (recorded as skipped), or, for `done`, nothing to
    /// run (recorded as ok).
    pub fn begin_action(&mut self, workflow_id: &str, action_id: u64) -> ActionStart {
        let Ok(workflow) = self.workflow_mut(workflow_id) else {
            return ActionStart::Skip {
                why: SkipReason::NotHandedOut,
            };
        };
        let Some(at) = workflow
            .run
            .queued
            .iter()
            .position(|f| f.action_id == action_id)
        else {
            return ActionStart::Skip {
                why: SkipReason::NotHandedOut,
            };
        };
        // Actions are begun in the order they were handed out; anything before this one was
        // dropped by the host.
        let flight = workflow.run.queued.remove(at);
        workflow.run.queued.drain(..at);
        let skipped = |why| ActionStart::Skip { why };
        if halted(workflow.state) {
            workflow.record(plain(action_id, flight.action_type, ResultStatus::Skipped));
            return skipped(SkipReason::Stopped);
        }
        if workflow.run.failed {
            workflow.record(plain(action_id, flight.action_type, ResultStatus::Skipped));
            return skipped(SkipReason::EarlierFailure);
        }
        // Neither touches the page: `more` asks for the next part of a long result, which the
        // engine writes into this message's result line (it checked the token already).
        if flight.action_type == "done" || flight.action_type == "more" {
            workflow.record(plain(action_id, flight.action_type, ResultStatus::Ok));
            return ActionStart::Finished;
        }
        workflow.run.running = Some(flight);
        ActionStart::Run
    }

    /// One attempt of the running action `action_id` answered with `reply` (`None`: no answer
    /// at all). Records the outcome once the action is over and says what happens next: another
    /// attempt (a failure that touched nothing, `on_error: retry`, attempts left, the workflow
    /// not stopped), go on, or skip the rest of the message (a failure, unless `on_error: skip`;
    /// the user's refusal always).
    pub fn record_outcome(
        &mut self,
        workflow_id: &str,
        action_id: u64,
        reply: Option<&ActionReply>,
    ) -> Result<OutcomeStep, EngineError> {
        let workflow = self.workflow_mut(workflow_id)?;
        let Some(mut flight) = workflow
            .run
            .running
            .take()
            .filter(|f| f.action_id == action_id)
        else {
            return Err(EngineError::NotRunning {
                workflow_id: workflow_id.to_owned(),
                action_id,
            });
        };
        let Some(failure) = ActionReply::failure(reply) else {
            let result = reply.and_then(|r| r.result.as_ref());
            workflow.record(success(&flight, result));
            return Ok(OutcomeStep {
                next: NextStep::GoOn,
                failure: None,
            });
        };
        if is_retriable(&failure.code) && flight.attempt < flight.retries && !halted(workflow.state)
        {
            flight.attempt += 1;
            let attempt = flight.attempt;
            workflow.run.running = Some(flight);
            return Ok(OutcomeStep {
                next: NextStep::Retry { attempt },
                failure: Some(failure),
            });
        }
        let next = Self::fail_action(workflow, &flight, &failure);
        Ok(OutcomeStep {
            next,
            failure: Some(failure),
        })
    }

    /// The running action was refused before it ran (the rate limits): recorded as failed, and
    /// the rest of the message is skipped.
    pub fn refuse_action(
        &mut self,
        workflow_id: &str,
        action_id: u64,
        failure: &ActionFailure,
    ) -> Result<NextStep, EngineError> {
        let workflow = self.workflow_mut(workflow_id)?;
        let Some(flight) = workflow
            .run
            .running
            .take()
            .filter(|f| f.action_id == action_id)
        else {
            return Err(EngineError::NotRunning {
                workflow_id: workflow_id.to_owned(),
                action_id,
            });
        };
        workflow.record(failed(action_id, flight.action_type, failure));
        workflow.run.failed = true;
        Ok(NextStep::StopMessage)
    }

    fn fail_action(
        workflow: &mut Workflow,
        flight: &InFlight,
        failure: &ActionFailure,
    ) -> NextStep {
        workflow.record(failed(flight.action_id, flight.action_type, failure));
        // A refusal (by the user, a rule of theirs, or a question nobody answered) ends the
        // message's actions, whatever the model asked for.
        if flight.skip_on_error && !is_refusal(&failure.code) {
            return NextStep::GoOn;
        }
        workflow.run.failed = true;
        NextStep::StopMessage
    }

    /// The actions of one poll have all run. Without result lines, a failure skips the rest of
    /// the poll's actions only; with them, the rest of the message's, until its result is built.
    pub fn actions_settled(&mut self) {
        for workflow in &mut self.workflows {
            if !workflow.has(Capability::ResultLines) {
                workflow.run.failed = false;
                workflow.run.outcomes.clear();
            }
        }
    }

    /// The report of a message's actions, for a [`Decision::ResultDue`] whose actions have run:
    /// each executed action's outcome (skipped when none was recorded), each refused record, in
    /// action order. The rest of the message is over: later actions run again. `None` when the
    /// decision is not a `ResultDue` or its workflow is unknown.
    pub fn message_report(&mut self, due: &Decision) -> Option<ResultReport> {
        let Decision::ResultDue {
            workflow_id,
            executed,
            rejected,
            ..
        } = due
        else {
            return None;
        };
        let workflow = self.workflow_mut(workflow_id).ok()?;
        let mut actions = Vec::with_capacity(executed.len() + rejected.len());
        let mut observation = None;
        for &id in executed {
            let taken = workflow
                .run
                .outcomes
                .iter()
                .position(|r| r.result.action_id == id)
                .map(|at| workflow.run.outcomes.remove(at));
            match taken {
                Some(recorded) => {
                    if recorded.observation.is_some() {
                        observation = recorded.observation;
                    }
                    actions.push(recorded.result);
                }
                None => actions.push(ActionResult {
                    action_id: id,
                    action_type: None,
                    status: ResultStatus::Skipped,
                    code: None,
                    reason: None,
                    hints: Vec::new(),
                    effects: Vec::new(),
                    data: None,
                }),
            }
        }
        for rejection in rejected {
            actions.push(ActionResult {
                action_id: rejection.action_id.unwrap_or(0),
                action_type: None,
                status: ResultStatus::Rejected,
                code: Some(rejection.code.code().to_owned()),
                reason: Some(rejection.reason.clone()),
                hints: Vec::new(),
                effects: Vec::new(),
                data: None,
            });
        }
        crate::protocol::small_sort::sort_by_key(&mut actions, |a| a.action_id);
        workflow.run.failed = false;
        Some(ResultReport {
            actions,
            page: None,
            observation,
            changes: None,
        })
    }
}
