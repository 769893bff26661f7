"""The observers of what happens around the model: one object the coordinator calls.

``Around`` owns
- ``LossCapture`` (``loss_capture.py``): what reaches the loss on recorded steps;
- ``StructureWatch`` (``structure.py``): unregistered parts, frozen tensors, batch-norm
  batch sizes;
- ``WarningCapture`` (``raised_warnings.py``): the framework's warnings, with step and module;
- ``GraphGrowth`` (``graph_growth.py``): the size of the loss's graph on the first steps;
- ``AttentionCapture`` (``attention_capture.py``): attention weights made by a softmax
  function call (torch), measured like a softmax layer's;
- ``CarriedGradients`` (``carried_gradients.py``): on every step, an eval-mode backward's
  gradients added to a training step's (one tensor hook, on for the whole run), and the
  backward passes of each step;
- ``OptimizerSteps`` (``optimizer_steps.py``): steps with more optimizer steps than
  backward passes (one optimizer step hook, on for the whole run);
- ``OptimizerRestarts`` (``optimizer_restarts.py``): optimizers built anew over the model's
  parameters while training goes on (torch's global optimizer step hook);
- ``ValidationInputs`` (``validation_inputs.py``): the scale of the inputs of evaluation
  forwards (no gradient), once the run passes validation losses;
- ``ForwardsAfterTraining`` (``forwards_after_training.py``): the no-gradient forwards after
  the last step (calibration, Monte Carlo passes, rendering) and the layer modes they ran in;
- ``SeedCalls`` (``seed_calls.py``): ``torch.manual_seed`` calls while training runs;
- ``WindowOverlap`` (``window_overlap.py``): evaluation windows that are training windows
  shifted by a few steps;
- ``WindowBorders`` (``window_borders.py``): the state each recurrent layer starts a
  training window from, and whether consecutive batches continue the same streams of text;
and the global module hooks of a recorded step (torch's, and minigrad's own in
``minigrad/nn/hooks.py``), dispatched to the first two (one pair of hooks for both). Everything lands in ``run.observed``.

The global hooks make every module call of a recorded step pass through Python (11% of a
recorded step of a small MLP). After the first ``STEPS_TO_FIND_A_USE`` recorded steps they
stay off for a model that showed them nothing only they can see: no module outside the
model ran inside its forward, the attention mode was dropped (it names its softmax calls
by the module running), and at most one loss module outside the model was called, which
is then hooked directly. A monitor armed for a step that never comes (a loop stopped without
``close()``) lets go of them once other models have made ``FOREIGN_CALLS_LEFT_OPEN`` module
calls with no call of its own model between them.

The coordinator (``monitor.py``) calls, in this order: ``arm(step)`` with the step's other
hooks, ``disarm()`` right after them, ``on_loss(loss)`` when a recorded step ends,
``pack(packet)`` before the step's one host transfer and ``take(values, record)`` after it;
``before_findings()`` before the rules run; ``close()`` once.
"""
from ..adapters.observing import global_module_hooks
from .attention_capture import STEPS_TO_FIND_A_USE, AttentionCapture
from .carried_gradients import CarriedGradients
from .functional_dropout import read_functional_dropouts
from .random_projections import read_random_projections   # real-bug batch 113
from .placeholder_points import REDUCTION_POSITIONS   # real-bug batch 115
from .placeholder_points import function_reduction as point_loss_reduction
from .random_states import read_random_rnn_states
from .layer_layouts import LayerLayouts
from .module_flags import read_module_freeze_flags
from .module_backwards import read_module_backwards
from .repeated_modules import read_repeated_modules
from .stacked_linears import StackedLinears
from .nonfinite_origins import NonFiniteOrigins
from .optimizer_restarts import OptimizerRestarts
from .resumed_optimizers import ResumedOptimizers
from .aliased_loads import AliasedLoads
from .restored_checkpoints import RestoredCheckpoints   # real-bug batch 139
from .optimizer_steps import OptimizerSteps
from .shared_optimizers import SharedOptimizers
from .parameter_dtypes import read_parameter_dtypes
from .soft_target_rows import read_soft_target_rows
from .signed_targets import SignedTargets
from .lr_multipliers import read_lr_multipliers
from .slow_group_weights import read_slow_group_weights
from .graph_growth import GraphGrowth
from .multiplied_skips import MultipliedSkips   # real-bug batch 57
from .head_softmaxes import HeadSoftmaxes   # real-bug batch 57
from .patch_grid_reshapes import PatchGridReshapes   # real-bug batch 57
from .loss_capture import LossCapture
from .loss_reductions import LossReductions
from .detached_terms import DetachedTerms
from .graph_walks import ForwardGraph, LossGraph
from .self_additions import SelfAdditions
from .reparameterisations import Reparameterisations   # real-bug batch 37
from .posterior_draws import PosteriorDraws   # real-bug batch 91
from .picked_targets import PickedTargets
from .policy_gradient_terms import PolicyGradientTerms
from .target_ids import CLASS_INDEX_LOSSES, function_call_options, loss_options
from .binary_loss_options import binary_function_options
from .raised_warnings import WarningCapture
from .schedulers import remember_schedulers
from .seed_calls import SeedCalls
from .discarded_losses import DiscardedLosses   # real-bug batch 39
from .gradients_after_step import GradientsAfterStep   # real-bug batch 39
from .settings import read_settings
from .structure import StructureWatch
from .unstepped import parameters_holding_gradients
from .validation_draws import ValidationDraws
from .feature_moments import FeatureMoments
from .input_ranges import InputRanges   # real-bug batch 59 (a scaler fitted before the split)
from .teacher_forced_validation import TeacherForcedValidation   # real-bug batch 59
from .validation_inputs import ValidationInputs
from .forwards_after_training import ForwardsAfterTraining   # real-bug batches 105/114
from .window_overlap import WindowOverlap
from .validation_sets import ValidationSets   # OVERFITTING on one validation set
from .joint_scaling import JointScaling
from .whole_batch_norms import WholeBatchNorms
from .outer_differences import OuterDifferences
from .token_id_shares import CategoryIdShares, TokenIdShares   # real-bug batches 30, 273
from .propagation_matrices import PropagationMatrices   # real-bug batch 31
from .scattered_messages import ScatteredMessages   # real-bug batch 66
from .feature_axis_readouts import FeatureAxisReadouts   # real-bug batch 66
from .squashed_batch_sums import SquashedBatchSums   # real-bug batch 31
from .maximised_probabilities import MaximisedProbabilities   # real-bug batch 68
from .loss_signs import PickedProbabilityLosses   # real-bug batch 75
from .trained_loss_nodes import TrainedLossNodes   # real-bug batch 72
from .soft_target_gradients import SoftTargetGradients   # real-bug batch 85
from .batch_totals import BatchTotals   # real-bug batch 83
from .loss_hinges import LossHinges   # real-bug batch 68
from .narrow_lookups import read_narrow_lookups   # real-bug batch 68
from .null_condition_lookups import read_null_condition_lookups   # real-bug batch 120
from .whole_batch_overlaps import WholeBatchOverlaps   # real-bug batch 38
from .pooled_log_probs import PooledLogProbs   # real-bug batch 44
from .ppo_ratios import PpoRatios   # real-bug batch 44
from .foreign_networks import ForeignNetworks   # real-bug batch 55
from .unloaded_checkpoints import UnloadedCheckpoints   # real-bug batch 90
from .averaged_copies import AveragedCopies   # real-bug batch 96
from .scoped_loaders import ScopedLoaders   # real-bug batch 95
from .pruned_weights import PrunedWeights   # real-bug batch 94
from .update_samples import UpdateSamples   # real-bug batch 99
from .carried_state import CarriedState   # real-bug batch 100
from .soft_target_labels import SoftTargetLabels   # real-bug batch 55
from .soft_target_padding import SoftTargetPadding, function_reduction   # real-bug batch 60
from .categorical_inputs import CategoricalInputs   # real-bug batch 63
from .input_precision import InputPrecision   # real-bug batch 61
from .channel_scales import ChannelScales   # real-bug batch 138 (channels in other units)
from .wrapped_inputs import WrappedInputs   # real-bug batch 61
from .validation_targets import ValidationTargets   # real-bug batch 61
from .ctc_blank_targets import CtcBlankTargets   # real-bug batch 38
from .ctc_alignments import CtcAlignments   # real-bug batch 89
from .visible_targets import VisibleTargets   # real-bug batch 40
from .sequence_reruns import SequenceReruns   # real-bug batch 40
from .one_unit_softmaxes import OneUnitSoftmaxes   # real-bug batch 41
from .transposing_reshapes import TransposingReshapes   # real-bug batch 41
from .transposing_reshapes import MAX_ROWS as RESHAPE_ROWS, keep_shape_pairs   # batch 226
from .target_column_scales import TargetColumnScales   # real-bug batch 42
from .near_zero_divisors import NearZeroDivisors   # real-bug batch 42
from .parameter_penalties import PenaltyStrengths   # real-bug batch 277
from .first_training_inputs import FirstTrainingInputs   # read by the next two
from .recomputed_segments import RecomputedSegments   # real-bug batch 88 (checkpointing)
from .diffusion_noise_levels import DiffusionNoiseLevels   # real-bug batch 71
from .target_values_in_features import TargetValuesInFeatures   # real-bug batch 42
from .identical_input_rows import IdenticalInputRows   # real-bug batch 45
from .mixup_partners import MixupPartners   # real-bug batch 76
from .augmented_targets import AugmentedTargets   # real-bug batch 76
from .mask_placement import MaskPlacement   # masks moved apart from their images
from .target_offsets import TargetOffsets   # inputs and targets cropped apart (batch 360)
from .class_only_padding import ClassOnlyPadding   # real-bug batch 65
from .row_standardised_inputs import RowStandardisedInputs   # real-bug batch 46
from .training_input_signs import TrainingInputSigns   # core variants 7
from .duplicated_input_columns import DuplicatedInputColumns   # real-bug batch 59
from .constant_decoder_inputs import ConstantDecoderInputs   # real-bug batch 49
from .in_place_skip_inputs import InPlaceSkipInputs   # real-bug batch 43
from .in_place_inputs import InPlaceInputs   # real-bug batch 64
from .start_parameters import read_start_values   # real-bug batch 64
from .identical_units import IdenticalUnits   # real-bug batch 80
from .turned_off_parameters import TurnedOffParameters   # real-bug batch 81
from .pretrained_norm_inputs import PretrainedNormInputs   # real-bug batch 73
from .loss_weights import LossWeights   # real-bug batch 74
from .shared_norm_sites import SharedNormSites   # real-bug batch 43
from .reversed_steps import ReversedSteps   # real-bug batch 34
from .straight_through_cancellations import StraightThroughCancellations   # real-bug batch 32
from .attention_scales import AttentionScales   # real-bug batch 79
from .handwritten_errors import HandwrittenErrors   # real-bug batch 126 (hand-written MSE)
from .ranked_losses import RankedLosses   # real-bug batch 135 (rows chosen by their losses)
from .soft_cross_entropies import SoftCrossEntropies   # real-bug batch 192 (their floor)
from .sample_normalised_inputs import SampleNormalisedInputs   # real-bug batch 172 (CMVN)
from .window_borders import WindowBorders   # real-bug batches 170/283 (states at windows)

INNER_CLASS_LOSSES = {"CrossEntropyLoss", "NLLLoss"}   # class-index loss modules read when
                                 # the model's own forward builds and calls them (batch 243)
FOREIGN_CALLS_LEFT_OPEN = 10_000  # [design] calls of modules outside this model, with no
                                  # call of the model between them, after which an armed
                                  # monitor counts as left open (a loop stopped without
                                  # close()): its global hooks go. A 24-layer teacher's
                                  # forward is ~400 calls; a stopped loop reaches this in a
                                  # few hundred steps of another model


class Around:
    def __init__(self, adapter, observed, *, loss_fn=None, optimizer_held=None,
                 current_step=lambda: None, on_error=lambda error: None, optimizer=None,
                 parameters=()):
        self.adapter, self.on_error = adapter, on_error
        self.optimizer = optimizer        # its step ends the attention mode early (torch)
        self._optimizer_hook = None
        self.losses = LossCapture(adapter, observed, loss_fn)
        self.structure = StructureWatch(adapter, observed, optimizer_held, on_error)
        read_settings(adapter, observed, optimizer, on_error)   # optimizer, dropout: once
        read_slow_group_weights(adapter, optimizer, observed, on_error)   # once, at start
        read_functional_dropouts(adapter, observed, on_error)   # F.dropout in forward: once
        read_random_rnn_states(adapter, observed, on_error)     # randn as an RNN's h0: once
        read_random_projections(adapter, observed, on_error)    # B = randn in forward: once
        self.layouts = LayerLayouts(adapter, observed, on_error)   # Conv1d's channel axis
        self.stacked = StackedLinears(adapter, observed, on_error)   # fc2(fc1(x)) directly
        self.warnings = WarningCapture(observed, current_step, self.structure.module_names)
        self.graph = GraphGrowth(adapter, observed)
        self.reductions = LossReductions(adapter, observed, on_error)   # each addend's reduction
        self.detached = DetachedTerms(adapter, observed, parameters, optimizer, on_error)
        # one walk of the loss's graph on the first recorded steps, read by each
        self.reparameterisations = Reparameterisations(observed)   # z = mu + eps * std
        self.posterior_draws = PosteriorDraws(observed)   # how that draw is built (batch 91)
        self.loss_graph = LossGraph(adapter, [
            self.reparameterisations.in_loss,   # what the loss reads of the scale
            self.posterior_draws.in_loss,       # which draws are a VAE's posterior's
            WholeBatchNorms(observed),       # z / z.norm() over the whole batch
            OuterDifferences(observed),      # (N, 1) - (N,)
            SquashedBatchSums(observed),     # sigmoid(x.sum())
            MaximisedProbabilities(observed),   # -sigmoid(s).mean() (batch 68)
            PickedProbabilityLosses(observed),   # softmax(s)[i, y].mean() (batch 75)
            LossHinges(observed),            # relu(sim - margin) (batch 68)
            WholeBatchOverlaps(observed)], on_error)   # a Dice summed over the batch
        self.policy_terms = PolicyGradientTerms(adapter, observed, parameters, optimizer, on_error)
        self.picked_targets = PickedTargets(adapter, on_error)   # gather(log_softmax)
        self.attention = AttentionCapture(adapter, self._attention_site, on_error,
                                          on_loss_call=self._on_loss_function)
        self.attention.scales = AttentionScales(observed, current_step, on_error)   # batch 79
        self.errors = HandwrittenErrors(adapter, observed,   # ((pred - target) ** 2).mean()
                                        lambda: self.structure.inside_forward)
        self.attention.errors = self.errors
        self.ranked = RankedLosses(observed, current_step)   # argsort of per-sample losses
        self.attention.ranked = self.ranked
        self.soft_targets = SoftCrossEntropies(observed)   # -(t * log_softmax(s)).sum()
        self.attention.soft = self.soft_targets
        self.carried = CarriedGradients(adapter, observed, parameters, current_step, on_error)
        self.optimizer_steps = OptimizerSteps(optimizer, observed, self.carried.backwards_in,
                                              current_step, on_error, root=adapter.model)
        self.restarts = OptimizerRestarts(adapter, observed, parameters, current_step, on_error)
        self.shared = SharedOptimizers(adapter, observed, parameters, current_step, on_error)
        self.evaluations = ValidationInputs(adapter, observed, adapter.model, current_step,
                                            on_error)
        self.after_training = ForwardsAfterTraining(   # no-gradient forwards after the last
            adapter, observed, adapter.model, current_step, on_error)   # step (batches 105/114)
        self.validation_draws = ValidationDraws(adapter, observed, on_error)
        self.validation_sets = ValidationSets(adapter, observed, adapter.model, current_step,
                                              on_error)   # which set each pass measured
        self.feature_moments = FeatureMoments(adapter, observed, adapter.model, current_step,
                                              on_error)   # per-column, feature_moments.py
        self.input_ranges = InputRanges(adapter, observed, adapter.model, current_step,
                                        on_error)   # lowest/highest input (batch 59)
        self.teacher_inputs = TeacherForcedValidation(
            adapter, observed, adapter.model, current_step, on_error)   # batch 59
        self.seeds = SeedCalls(adapter, observed, current_step, on_error)
        self.windows = WindowOverlap(adapter, observed, adapter.model, on_error)
        self.joint_scaling = JointScaling(adapter, observed, adapter.model, current_step,
                                          on_error)   # windows scaled with their targets
        self.origins = NonFiniteOrigins(adapter, observed, adapter.model, optimizer, on_error)
        self.signed_targets = SignedTargets(adapter, observed, current_step, on_error)   # +1/-1
        self.ctc_blanks = CtcBlankTargets(adapter, observed, current_step, on_error)   # id 0
        self.ctc_alignments = CtcAlignments(adapter, observed, current_step,
                                            on_error)   # lengths, label ids (batch 89)
        self.visible_targets = VisibleTargets(adapter, observed, current_step,
                                              on_error)   # labels shown in the input
        self.sequence_reruns = SequenceReruns(adapter, observed, current_step,
                                              on_error)   # token order, packed rows
        self.target_columns = TargetColumnScales(adapter, observed, current_step,
                                                 on_error)   # outputs in other units
        self.divisors = NearZeroDivisors(adapter, observed, on_error)   # |y - p| / |y|
        self.loss_graph.readers.append(self.divisors.in_loss)   # its scan of the loss graph
        self.penalties = PenaltyStrengths(adapter, observed, parameters, on_error)   # lambda
        self.loss_graph.readers.append(self.penalties.in_loss)   # its scan (batch 277)
        self.loss_graph.readers.append(PooledLogProbs(observed))   # mean(lp) * returns (batch 44)
        self.loss_graph.readers.append(TrainedLossNodes(observed))   # a term never added (batch 72)
        self.loss_graph.readers.append(SoftTargetGradients(
            observed, parameters, optimizer))   # soft targets with a gradient (batch 85)
        self.loss_graph.readers.append(BatchTotals(observed))   # a batch's sum in a term (batch 83)
        self.ppo_ratios = PpoRatios(adapter, observed, on_error)   # exp(lp - old lp) (batch 44)
        self.loss_graph.readers.append(self.ppo_ratios)   # its scan for a ratio
        self.foreign = ForeignNetworks(adapter, observed, on_error,   # teachers (batch 55)
                                       stepped_ids=self.restarts.stepped_ids)   # 155/161
        self.unloaded_checkpoints = UnloadedCheckpoints(   # unloaded_checkpoints.py (batch 90)
            adapter, observed, adapter.model, on_error)
        self.averaged_copies = AveragedCopies(   # averaged_copies.py: EMA/SWA copies (batch 96)
            adapter, observed, adapter.model, on_error)
        self.pruned = PrunedWeights(adapter, observed, adapter.model, optimizer, current_step,
                                    on_error)   # zeros regrown, layers pruned whole (batch 94)
        self.update_samples = UpdateSamples(   # update_samples.py: hand-written update rules
            adapter, observed, adapter.model, optimizer, on_error)   # (batch 99)
        self.carried_state = CarriedState(   # carried_state.py: an optimizer's state from an
            adapter, observed, adapter.model, optimizer, on_error)   # earlier run (batch 100)
        self.scoped_loaders = ScopedLoaders(   # scoped_loaders.py (batch 95)
            adapter, observed, adapter.model, current_step, on_error)
        self.soft_labels = SoftTargetLabels(adapter, observed, current_step,
                                            on_error)   # KD targets vs labels (batch 55)
        self.soft_padding = SoftTargetPadding(adapter, observed, current_step,
                                              on_error)   # smoothed rows of padding (batch 60)
        self.first_inputs = FirstTrainingInputs(adapter, adapter.model, current_step, on_error)
        self.recomputed = RecomputedSegments(adapter, observed, self.first_inputs,
                                             on_error)   # run again in backward (batch 88)
        self.target_values = TargetValuesInFeatures(adapter, observed, self.first_inputs,
                                                    on_error)   # y in x's rows
        self.noise_levels = DiffusionNoiseLevels(adapter, observed, self.first_inputs,
                                                 on_error)   # x_t = a x0 + b noise (batch 71)
        self.input_twins = IdenticalInputRows(adapter, observed, self.first_inputs,
                                              on_error)   # one input, two labels (batch 45)
        self.mixup_partners = MixupPartners(adapter, observed, self.first_inputs,
                                            on_error)   # labels' 2nd shuffle (batch 76)
        self.augmented_targets = AugmentedTargets(adapter, observed, self.first_inputs,
                                                  on_error)   # jittered masks (batch 76)
        self.mask_placement = MaskPlacement(adapter, observed, self.first_inputs,
                                            on_error)   # masks not flipped with their images
        self.target_offsets = TargetOffsets(adapter, observed, self.first_inputs,
                                            on_error)   # cropped apart (batch 360)
        self.class_padding = ClassOnlyPadding(adapter, observed, self.first_inputs,
                                              on_error)   # one class padded (batch 65)
        self.channel_scales = ChannelScales(adapter, observed, self.first_inputs,   # batch 138
                                            on_error)
        self.row_scaling = RowStandardisedInputs(adapter, observed, self.first_inputs,
                                                 on_error)   # rows standardised (batch 46)
        self.sample_scaling = SampleNormalisedInputs(adapter, observed, self.first_inputs,
                                                     on_error)   # per-sample CMVN (batch 172)
        self.input_signs = TrainingInputSigns(adapter, observed, self.first_inputs,
                                              on_error)   # raw or centred (core variants 7)
        self.input_precision = InputPrecision(adapter, observed, self.first_inputs,
                                              on_error)   # inputs cast to bf16 (batch 61)
        self.wrapped_inputs = WrappedInputs(adapter, observed, self.first_inputs,
                                            on_error)   # uint8 wrapped around (batch 61)
        self.validation_targets = ValidationTargets(
            adapter, observed, adapter.model, current_step, on_error)   # .long() (batch 61)
        self.categorical = CategoricalInputs(adapter, observed, self.first_inputs, current_step,
                                             on_error)   # codes, fields, frozen tables (batch 63)
        self.copied_columns = DuplicatedInputColumns(adapter, observed, self.first_inputs,
                                                     on_error)   # copied features (batch 59)
        self.in_place_skips = InPlaceSkipInputs(adapter, observed, on_error)   # relu_ on a skip
        self.in_place_inputs = InPlaceInputs(adapter, observed, adapter.model,
                                             on_error)   # x += noise on the data (batch 64)
        read_start_values(adapter, observed, on_error)   # never initialised (batch 64)
        self.identical_units = IdenticalUnits(adapter, observed, on_error)   # batch 80
        self.turned_off = TurnedOffParameters(adapter, observed, on_error)   # batch 81
        self.pretrained_norms = PretrainedNormInputs(adapter, observed, adapter.model,
                                                     on_error)   # data vs pretrained BN (batch 73)
        self.norm_sites = SharedNormSites(adapter, observed, on_error)   # one BN, two sites
        self.constant_decoder = ConstantDecoderInputs(adapter, observed, on_error)   # zeros fed
        self.window_borders = WindowBorders(adapter, observed, on_error)   # states at borders
        self.token_ids = TokenIdShares(adapter, observed, current_step, on_error)   # <unk> share
        self.category_ids = CategoryIdShares(adapter, observed, current_step,
                                             on_error)   # a categorical column all one id
        self.reversed_steps = ReversedSteps(adapter, observed, on_error)   # rnn(x.flip(1)) unflipped
        # one walk of the forward's graph on the first recorded steps, read by each
        self.forward_graph = ForwardGraph(adapter, [
            SelfAdditions(observed),                  # x + x in the forward
            self.reparameterisations.in_forward,   # eps * std in the forward
            self.posterior_draws.in_forward,       # its noise, mean and scale (batch 91)
            PropagationMatrices(observed),            # A @ h
            StraightThroughCancellations(observed),   # x + (q - x)
            self.reversed_steps], on_error)
        # real-bug batch 41: a softmax over one number, a reshape that reorders axes; read in
        # both walks (a loss's own log-softmax or view; a loop that hands no loss to step())
        for walk in (self.loss_graph, self.forward_graph):
            walk.readers += [OneUnitSoftmaxes(observed), TransposingReshapes(observed)]
        # real-bug batch 57: a skip joined with *, a softmax over all heads' keys (forward)
        self.forward_graph.readers += [MultipliedSkips(observed), HeadSoftmaxes(observed),
                                       PatchGridReshapes(observed)]   # patches by one view
        self.forward_graph.readers.append(self.stacked)   # fc1's output read beside fc2?
        self.forward_graph.readers += [ScatteredMessages(observed),   # batch 66: h[senders],
                                       FeatureAxisReadouts(observed)]   # h.mean(-1) read out
        self.resumed = ResumedOptimizers(adapter, observed, parameters, current_step, on_error)
        self.aliased_loads = AliasedLoads(adapter, observed, adapter.model, current_step, on_error)
        self.restored = RestoredCheckpoints(   # which weights a best-checkpoint restore loads
            adapter, observed, adapter.model, current_step, on_error)   # (batch 139)
        # real-bug batch 39: losses never back-propagated, gradients clipped after the step
        self.discarded_losses = DiscardedLosses(adapter, observed, on_error)
        self.after_step = GradientsAfterStep(adapter, observed, optimizer, current_step,
                                             on_error)
        self.loss_weights = LossWeights(adapter, observed, optimizer, on_error)   # batch 74
        self._softmax_layers = None
        self._loss_modules_running = 0     # F.cross_entropy inside nn.CrossEntropyLoss: the
                                           # module's call is the one to keep
        self._current_step = current_step
        self._global = None
        self.global_steps = 0              # recorded steps the global hooks ran through
        self.global_needed = True          # False once they showed nothing (module doc)
        self._loss_modules = {}            # id -> loss module outside the model, seen called
        self._loss_handles = []
        self.armed = False
        self._foreign_calls = 0            # calls of modules outside the model since its own
        self._first_rates = self._learning_rates()   # schedulers are read once they moved

    def arm(self, step, closer_look=False):
        """Hooks on for recorded step ``step``; ``closer_look``: the schedule records it
        because the loss jumped or a NaN appeared (``Schedule.closer_look``)."""
        if self.armed:
            self.disarm()          # never two sets of hooks at once
        self.armed = True
        self.policy_terms.arm(step)       # first: its mode lies under the forward's modes
        self.picked_targets.arm(step)     # so does this one (picked_targets.py)
        self.divisors.arm(step)           # so does this one (near_zero_divisors.py)
        self.penalties.arm(step)          # and this one (parameter_penalties.py)
        self.ppo_ratios.arm(step)         # and this one (ppo_ratios.py)
        self.losses.arm()
        self.structure.arm(step)
        self.layouts.arm(step)
        self.stacked.arm(step)
        self.attention.arm()
        self.errors.arm()                 # handwritten_errors.py (through attention's mode)
        self.ranked.arm()                 # ranked_losses.py (through attention's mode)
        self.soft_targets.arm()           # soft_cross_entropies.py (attention's mode)
        self.origins.arm(step, closer_look)   # NaN births (nonfinite_origins.py)
        self.graph.arm()             # the loss's constants, when a step showed one
        self.reductions.arm()
        self.reversed_steps.arm(step)     # its hooks on recurrent layers, then the walk's
        self.discarded_losses.arm(step)   # discarded_losses.py
        self.after_step.arm(step)         # gradients_after_step.py
        self.loss_weights.arm(step)       # loss_weights.py (first steps, batch 74)
        self.forward_graph.arm(step)
        self.sequence_reruns.arm(step)    # its pre-hook goes once it kept a call
        self.in_place_skips.arm(step)     # in_place_skip_inputs.py (first steps)
        self.in_place_inputs.arm(step)    # in_place_inputs.py (first steps, batch 64)
        self.pretrained_norms.arm(step)   # pretrained_norm_inputs.py (first step, batch 73)
        self.norm_sites.arm(step)         # shared_norm_sites.py (first steps)
        self.constant_decoder.arm(step)   # constant_decoder_inputs.py (first steps)
        self.window_borders.arm(step)     # window_borders.py (first steps)
        self.categorical.arm(step)        # categorical_inputs.py: drops its finished hooks
        self.scoped_loaders.arm(step)     # scoped_loaders.py (batch 95)
        if self.global_needed and self.global_steps >= STEPS_TO_FIND_A_USE and \
                not self.attention.enabled and len(self._loss_modules) <= 1 and \
                not self.structure.saw_unregistered_modules():
            self.global_needed = False
        if self.global_needed:
            self._foreign_calls = 0
            self._global = global_module_hooks(self.adapter.framework, self._before_any,
                                               self._after_any)
            self.global_steps += 1
        else:
            self._loss_handles = [self.adapter.add_forward_hook(module, self._after_loss_module)
                                  for module in self._loss_modules.values()]
        register = getattr(self.optimizer, "register_step_pre_hook", None)
        if self.attention.waiting and register is not None:
            try:
                self._optimizer_hook = register(self._before_optimizer_step)
            except Exception as error:        # an optimizer without working hooks
                self.on_error(error)

    def _before_optimizer_step(self, optimizer, args, kwargs):
        # the forward and the loss are over by the optimizer's step, unless the step itself
        # runs them: a closure (``optimizer.step(closure)``: L-BFGS, and every step of
        # Lightning's automatic optimisation) calls the model after this hook, so a mode
        # that has not started yet stays waiting for that forward
        if not self.attention.waiting:
            self.attention.disarm()
        return None

    def disarm(self):
        if self._global is not None:
            self._global.remove()
            self._global = None
        for handle in self._loss_handles:
            handle.remove()
        self._loss_handles = []
        if self._optimizer_hook is not None:
            self._optimizer_hook.remove()
            self._optimizer_hook = None
        self.structure.disarm()
        self.layouts.disarm()
        self.stacked.disarm()
        self.losses.disarm()
        self.origins.disarm()        # first: its mode lies on attention's
        self.attention.disarm()
        self.errors.disarm()
        self.ranked.disarm()
        self.soft_targets.disarm()
        self.graph.disarm()          # after attention's mode: ours lies under it
        self.reductions.disarm()
        self.forward_graph.disarm()
        self.discarded_losses.disarm()    # the step's backward passes are over
        self.after_step.disarm()          # and its optimizer step
        self.loss_weights.disarm()        # loss_weights.py (batch 74)
        self.reversed_steps.disarm()
        self.policy_terms.disarm()
        self.picked_targets.disarm()
        self.divisors.disarm()            # near_zero_divisors.py
        self.penalties.disarm()           # parameter_penalties.py
        self.in_place_skips.disarm()      # in_place_skip_inputs.py
        self.in_place_inputs.disarm()     # in_place_inputs.py (batch 64)
        self.pretrained_norms.disarm()    # pretrained_norm_inputs.py (batch 73)
        self.norm_sites.disarm()          # shared_norm_sites.py
        self.constant_decoder.disarm()    # constant_decoder_inputs.py
        self.window_borders.disarm()      # window_borders.py
        self.ppo_ratios.disarm()          # ppo_ratios.py
        self.recomputed.after_step()      # recomputed_segments.py (batch 88)
        self.scoped_loaders.disarm()      # scoped_loaders.py (batch 95)
        self.armed = False

    def _before_any(self, module, inputs):
        if not self.structure.inside_forward and id(module) in self.structure.module_names:
            self.recomputed.offer(module, self._current_step())   # batch 88: in backward?
        if module is self.structure.root:
            self._foreign_calls = 0
        elif id(module) not in self.structure.module_names:
            self._foreign_calls += 1
            if self._foreign_calls > FOREIGN_CALLS_LEFT_OPEN:
                self._left_open()
                return
            if not self.structure.inside_forward:
                self.foreign.offer(module)    # a teacher, an EMA copy (foreign_networks.py)
        if self.attention.waiting and id(module) in self.structure.module_names:
            self.attention.start()    # our model's forward starts (not another model's:
                                      # a monitor left open must not push its mode there);
                                      # any of its modules: a ModuleList of networks is
                                      # never called itself (co-teaching's pair, batch 135)
        self.structure.before_any(module, inputs)
        if type(module).__name__.endswith("Loss"):
            self._loss_modules_running += 1

    def _after_any(self, module, inputs, output):
        self.structure.after_any(module, inputs, output)
        if type(module).__name__.endswith("Loss") and self._loss_modules_running:
            self._loss_modules_running -= 1
        try:
            if not self.structure.inside_forward and type(module).__name__.endswith("Loss") \
                    and id(module) not in self.structure.module_names and inputs:
                self._loss_modules[id(module)] = module
                self._after_loss_module(module, inputs, output)
            elif type(module).__name__ in INNER_CLASS_LOSSES and len(inputs) > 1 and \
                    id(module) not in self.structure.module_names:
                # real-bug batch 243: a class-index loss built and called inside the model's
                # forward (a Hugging Face head's `labels=` loss): its logits and targets
                self.losses.offer(type(module).__name__, inputs[0], inputs[1],
                                  loss_options(module))
        except Exception as error:       # never break the user's step
            self.on_error(error)

    def _left_open(self):
        """Armed for a step that never came while other models ran on (a loop stopped by an
        error or Ctrl-C, the monitor never closed): every module call of the process would
        pass through these hooks for good. They go; the next recorded step, if one comes,
        puts them back."""
        if self._global is not None:
            self._global.remove()
            self._global = None
        self.origins.disarm()          # its mode lies on attention's: first
        self.attention.disarm()        # and its mode, if a stopped forward left it pushed

    def _after_loss_module(self, module, inputs, output):
        """A loss module outside the model was called (through the global hooks, or the
        direct hook that replaces them)."""
        try:
            if inputs:
                self.discarded_losses.offer(inputs[0])   # discarded_losses.py
            self.loss_weights.offer(module, output, getattr(module, "reduction", None))   # b. 74
            self.signed_targets.offer(type(module).__name__, inputs, output)   # 0/1 for +1/-1
            self.ctc_blanks.offer_module(module, inputs, output)   # a label = the blank
            self.ctc_alignments.offer_module(module, inputs, output)   # ctc_alignments.py
            self.target_columns.offer_module(module, inputs, output)   # column spreads
            self.soft_labels.offer(type(module).__name__, inputs)   # soft_target_labels.py
            if inputs:
                self.losses.offer(type(module).__name__, inputs[0],
                                  inputs[1] if len(inputs) > 1 else None, loss_options(module))
        except Exception as error:       # never break the user's step
            self.on_error(error)

    def on_loss(self, loss):
        """The recorded step ended with this loss: read its graph if no hook saw the call."""
        try:
            self.losses.from_graph(loss)
            self.graph.on_loss(self._current_step(), loss)
            self.reductions.on_loss(self._current_step(), loss)
            self.loss_graph.on_loss(self._current_step(), loss)
            self.detached.on_loss(self._current_step(), loss)
            self.policy_terms.on_loss(self._current_step(), loss)   # log_prob x weight
            self.picked_targets.on_loss(self._current_step(), loss,   # labels picked by hand
                                        _with_targets(self.losses.call))
            self.window_borders.on_loss(self._current_step(), self.losses.call)   # its targets
        except Exception as error:
            self.on_error(error)

    def pack(self, packet):
        try:
            self.losses.pack(packet)
        except Exception as error:    # a loss call that cannot be measured costs that call
            self.losses.call = None
            self.on_error(error)
        self.attention.pack(packet)
        self.errors.pack(packet)
        self.soft_targets.pack(packet)
        self.origins.pack(packet)

    def take(self, values, record):
        self.losses.take(values, record)
        self.attention.take(values, record)
        self.errors.take(values, record)
        self.soft_targets.take(values, record)
        self.origins.take(values, record)

    def _on_loss_function(self, name, args, kwargs):
        """A loss function call seen by the function mode (torch); True when
        it was a loss called as a function (not from inside a loss module)."""
        self.soft_padding.offer(   # soft_target_padding.py (batch 60): inside loss modules
            name, args[0] if args else kwargs.get("input"),     # too (a smoothing loss
            args[1] if len(args) > 1 else kwargs.get("target"),  # written as a module)
            function_reduction(name, args, kwargs))
        if self._loss_modules_running:
            return False
        output = args[0] if args else kwargs.get("input")
        target = args[1] if len(args) > 1 else kwargs.get("target")
        self.soft_labels.offer(name, (output, target))   # soft_target_labels.py (batch 55)
        if name == "kl_div":          # seen for that pairing only
            return self.soft_labels.paired
        options = function_call_options(args, kwargs) if name in CLASS_INDEX_LOSSES else \
            binary_function_options(name, args, kwargs)   # binary_loss_options.py (batch 67)
        if name in REDUCTION_POSITIONS:   # a point regression's reduction (batch 115)
            options = {**options, "reduction": point_loss_reduction(name, args, kwargs)}
        self.losses.offer(name, output, target, options)
        self.discarded_losses.offer(output)   # discarded_losses.py
        self.ctc_blanks.offer_function(name, args, kwargs)   # ctc_blank_targets.py
        self.ctc_alignments.offer_function(name, args, kwargs)   # ctc_alignments.py
        self.target_columns.offer_function(name, args, kwargs)   # target_column_scales.py
        return True

    def _attention_site(self):
        """The registered module running now (``structure``'s stack of them), or None inside
        an nn.Softmax layer (its output is measured as a layer already)."""
        if self._softmax_layers is None:
            self._softmax_layers = {name for name, module in self.structure.root.named_modules()
                                    if type(module).__name__ == "Softmax"}
        stack = self.structure._stack
        name = stack[-1] if stack else ""
        return None if name in self._softmax_layers else name

    def before_findings(self, held=None):
        """``held``: ids of the parameters the optimizer holds now (None without one), as the
        monitor just read them."""
        self.structure.refresh_frozen(self._current_step(), held)
        self._read_schedulers()
        self.windows.summarize()          # window_overlap.py
        self.restored.summarize()         # restored_checkpoints.py (batch 139)
        self.joint_scaling.summarize()    # joint_scaling.py
        read_module_freeze_flags(self.adapter, self.structure.observed, self.on_error)
        read_module_backwards(self.adapter, self.structure.observed, self.on_error)
        read_repeated_modules(self.adapter, self.structure.observed, self.on_error)
        read_parameter_dtypes(self.adapter, self.structure.observed, self.on_error)
        read_soft_target_rows(self.adapter, self.structure.observed, self.on_error)
        self.signed_targets.read()          # signed_targets.py
        self.after_step.read()              # gradients_after_step.py
        self.pruned.read()                  # pruned_weights.py: sampled rows (batch 94)
        self.update_samples.read()          # update_samples.py: fitted updates (batch 99)
        self.ctc_blanks.read()              # ctc_blank_targets.py
        self.ctc_alignments.read()          # ctc_alignments.py
        self.visible_targets.read()         # visible_targets.py
        self.sequence_reruns.read()         # sequence_reruns.py
        self.target_columns.read()          # target_column_scales.py
        self.divisors.read()                # near_zero_divisors.py
        self.target_values.read()           # target_values_in_features.py
        self.noise_levels.read()            # diffusion_noise_levels.py (batch 71)
        self.input_twins.read()             # identical_input_rows.py (batch 45)
        if not self.armed:
            self.recomputed.read()          # recomputed_segments.py (batch 88)
        self.mixup_partners.read()          # mixup_partners.py (batch 76)
        self.augmented_targets.read()       # augmented_targets.py (batch 76)
        self.mask_placement.read()          # mask_placement.py
        self.target_offsets.read()          # target_offsets.py (batch 360)
        self.pretrained_norms.read()        # pretrained_norm_inputs.py (batch 73)
        self.loss_weights.read()            # loss_weights.py (batch 74)
        self.class_padding.read()           # class_only_padding.py (batch 65)
        self.identical_units.read()         # identical_units.py (batch 80)
        self.turned_off.read()              # turned_off_parameters.py (batch 81)
        self.origins.class_means.read()     # class_means.py (batch 75)
        self.origins.empty_overlaps.read()  # empty_overlaps.py (batch 75)
        self.row_scaling.read()             # row_standardised_inputs.py (batch 46)
        self.sample_scaling.read()          # sample_normalised_inputs.py (batch 172)
        self.channel_scales.read()          # channel_scales.py (batch 138)
        self.input_signs.read()             # training_input_signs.py (core variants 7)
        self.copied_columns.read()          # duplicated_input_columns.py (batch 59)
        if self.first_inputs.equal_arguments:   # one tensor given twice (batches 314-315)
            self.copied_columns.observed.duplicated_arguments = \
                list(self.first_inputs.equal_arguments)
        for step, before, after, order in self.first_inputs.axis_views:   # batch 226: the
            keep_shape_pairs(self.structure.observed.transposing_reshapes, step,   # a view
                             [(before, after, order)], RESHAPE_ROWS)      # reordering axes
        self.input_ranges.read()            # input_ranges.py (batch 59)
        self.norm_sites.read()              # shared_norm_sites.py
        self.foreign.read()                 # foreign_networks.py (batch 55)
        self.soft_labels.read()             # soft_target_labels.py (batch 55)
        self.soft_padding.read()            # soft_target_padding.py (batch 60)
        self.categorical.read()             # categorical_inputs.py (batch 63)
        read_narrow_lookups(self.adapter, self.categorical, self.structure.observed,
                            self.on_error)   # narrow_lookups.py (batch 68)
        read_null_condition_lookups(self.adapter, self.categorical, self.structure.observed,
                                    self.on_error)   # null_condition_lookups.py (batch 120)
        self.input_precision.read()         # input_precision.py (batch 61)
        self.wrapped_inputs.read()          # wrapped_inputs.py (batch 61)
        self.validation_targets.read()      # validation_targets.py (batch 61)
        read_lr_multipliers(self.adapter, self.optimizer, self.structure.observed, self.on_error)
        if self._current_step() == 0:      # no step() yet: did backward run? (unstepped.py)
            self.structure.observed.unstepped_gradients = \
                parameters_holding_gradients(self.adapter)

    def _learning_rates(self):
        """The learning rate of each param group (empty without an optimizer)."""
        try:
            return list(self.adapter.optimizer_learning_rates(self.optimizer))
        except Exception:                 # no optimizer, or one without param groups
            return []

    def _read_schedulers(self):
        """The schedulers driving the optimizer, read (``schedulers.py``) only once the learning
        rates moved since ``watch`` started: a rate that never moved needs no explaining, and
        a run without a scheduler (most short runs) pays nothing for the search. A rate that
        never moved under a scheduler built for the optimizer (torch marks the ``step`` it
        wraps) is read too: that scheduler was never stepped (LR_SCHEDULER_NEVER_STEPPED)."""
        moved = self._first_rates and self._learning_rates() != self._first_rates
        if moved or hasattr(getattr(self.optimizer, "step", None), "_wrapped_by_lr_sched"):
            remember_schedulers(self.structure.observed, self.optimizer)

    def close(self):
        self._read_schedulers()      # inside the user's loop: the scheduler is still a local
        self.disarm()
        self.foreign.read()          # inside the user's loop: the teacher is still a local
        self.unloaded_checkpoints.read()   # ... and the checkpoint (batch 90)
        self.averaged_copies.read()   # ... and the EMA/SWA copies of the model (batch 96)
        self.scoped_loaders.close()   # ... and the loaders' stored data (batch 95)
        self.pruned.close()          # pruned_weights.py: its step hook, prune masks (batch 94)
        self.update_samples.close()  # update_samples.py: its step hooks (batch 99)
        self.carried_state.close()   # carried_state.py: its one-step hook, if never called
        self.soft_labels.read()      # soft_target_labels.py (batch 55)
        self._loss_modules = {}
        self.warnings.close()
        self.carried.close()
        self.optimizer_steps.close()
        self.restarts.close()
        self.shared.close()
        self.token_ids.close()
        self.category_ids.close()
        self.categorical.close()            # categorical_inputs.py (batch 63)
        self.validation_targets.close()     # validation_targets.py (batch 61)
        self.visible_targets.close()
        self.sequence_reruns.close()
        self.resumed.close()
        self.aliased_loads.close()
        self.restored.close()
        self.evaluations.close()
        self.after_training.close()         # forwards_after_training.py (batches 105/114)
        self.validation_sets.close()
        self.feature_moments.close()
        self.input_ranges.close()           # input_ranges.py (batch 59)
        self.in_place_inputs.close()        # in_place_inputs.py (batch 64)
        self.identical_units.close()        # identical_units.py (batch 80)
        self.pretrained_norms.close()       # pretrained_norm_inputs.py (batch 73)
        self.teacher_inputs.close()         # teacher_forced_validation.py (batch 59)
        self.seeds.close()
        self.windows.close()
        self.joint_scaling.close()
        self.first_inputs.close()           # first_training_inputs.py
        self.detached.close()


def _with_targets(call):
    """Whether the step's loss call (``LossCapture.call``: name, output, target) had targets."""
    return call is not None and call[2] is not None
