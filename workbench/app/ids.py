"""Every Dash component id of the app, in one place (layout, callbacks and tests use these)."""

# ----- stores ---------------------------------------------------------------------------------
SESSION = "session-key"          #: dcc.Store (session storage): the server-side session's key
VERSION = "state-version"        #: dcc.Store: bumped after every change to the session's state
PROFILE_VERSION = "profile-version"  #: dcc.Store: bumped when a profile report arrives
SELECTED = "selected-group"      #: dcc.Store: a node of the selected group (or None)
VIEW_STATE = "view-state"        #: dcc.Store: open layers, collapsed groups (app/view.py)
FOUND = "found-vertex"           #: dcc.Store: drawing id to centre the view on (search, replay)
REPLAY_STEP = "replay-step"      #: dcc.Store: the replay step drawn (None: the plan)
DRAW_VERSION = "draw-version"    #: dcc.Store: VERSION, unless its canvas came with it (drawGate)
HIGHLIGHT = "graph-highlight"    #: dcc.Store: what the canvas highlights (highlight_targets)
HIGHLIGHT_DONE = "highlight-done"  #: dcc.Store: the clientside highlight's output (unused)
MARKS = "step-marks"             #: dcc.Store: drawing ids a replay step or a refusal marks
HEADER_VERSION = "header-version"  #: dcc.Store: VERSION, copied when the graph, policy or device changed
REPLAY_REQUEST = "replay-request"  #: dcc.Store: a replay step (not the plan's end) to draw
SESSION_REQUEST = "session-request"  #: dcc.Store: the session store's timestamp, passed on (in
#: the browser) only while the page has no VERSION yet: the page's start asks the server once
LINK_REQUEST = "link-request"    #: dcc.Store: the URL's hash, passed on only when it is a link
#: dcc.Stores of the tabs other than Plan: VERSION (with the selection, for Cost and Compile &
#: profile), copied in the browser only while that tab is shown and only when it changed, so
#: that an edit asks the server for nothing a hidden tab shows (assets/workbench.js: tabGate)
COST_VERSION, EXPLAIN_VERSION = "cost-version", "explain-version"
PROFILE_TAB_VERSION, WHATIF_VERSION, DIFF_VERSION = ("profile-tab-version", "whatif-version",
                                                     "diff-version")
#: the tabs' stores, in the order of assets/workbench.js's tabGate
TAB_STORES = (COST_VERSION, EXPLAIN_VERSION, PROFILE_TAB_VERSION, WHATIF_VERSION, DIFF_VERSION)
ROW_SET = "row-set"              #: dcc.Store: the group table's row the app selected (its id)
ROW_PICK = "row-pick"            #: dcc.Store: the table's selected rows, when the user picked them
STEP_SHOWN = "step-shown"        #: dcc.Store: {t, step}: the replay slider's step while Explain is shown
FIRST_VISIT = "first-visit"      #: dcc.Store (local storage): the help was dismissed
APP_MSG = "app-message"          #: a request the server could not handle, in one line

# ----- header: load and choose ----------------------------------------------------------------
GRAPH_CHOICE = "graph-choice"    #: dropdown of sample graphs and HLO files
UPLOAD = "graph-upload"          #: dcc.Upload of a JSON or HLO file
UPLOAD_LIMIT = "upload-limit"    #: dcc.Store: the upload size cap (bytes), for the browser
UPLOAD_CHECKED = "upload-checked"  #: dcc.Store: an upload within the cap, passed to the server
LOAD_MSG = "load-message"        #: errors from choosing or uploading a graph (or a plan)
LOAD_NOTE = "load-note"          #: what an upload did when it was a saved plan
GRAPH_TITLE = "graph-title"      #: the current graph's name and source
POLICY = "planner-policy"        #: dropdown: priority, xla-cpu, greedy
DEVICE = "device-profile"        #: dropdown: every cost-model profile (cpu, h100, h200, a100)
REPLAN = "replan-button"
REPLAN_MSG = "replan-message"

# ----- graph view -----------------------------------------------------------------------------
CYTO = "graph-view"              #: the dash-cytoscape canvas (also named in assets/workbench.js)
BANNER = "view-banner"           #: "Planner replay: step k of n" / "XLA's own grouping"
SEARCH = "node-search"           #: input: a node name
SEARCH_MSG = "search-message"
FIT = "fit-button"
COLLAPSE_ALL = "collapse-all"
EXPAND_ALL = "expand-all"
TOGGLE_GROUP = "toggle-group"    #: collapse or expand the selected group
RELAYOUT = "relayout-button"
CLOSE_LAYER = "close-layer"      #: close the innermost open layer of the selection
BREADCRUMB = "breadcrumb"        #: the layers of the selection, outermost first
CRUMB_LAYER = "crumb-layer"      #: dcc.Store: the breadcrumb's last layer (what Close layer closes)
CRUMB = "crumb"                  #: pattern-matching id type of a breadcrumb's buttons
OVERVIEW = "overview"            #: the overview map (a canvas drawn by assets/workbench.js)
HOVER_INFO = "hover-info"        #: one line about the node under the pointer
HELP = "first-help"              #: the first-visit help box
HELP_CLOSE = "first-help-close"
LEGEND = "kind-legend"

# ----- tabs -----------------------------------------------------------------------------------
TABS = "panel-tabs"
TAB_PLAN, TAB_COST, TAB_EXPLAIN, TAB_PROFILE = "tab-plan", "tab-cost", "tab-explain", "tab-profile"

# ----- plan panel -----------------------------------------------------------------------------
PLAN_SUMMARY = "plan-summary"
GROUP_TABLE = "group-table"      #: dash_ag_grid.AgGrid, one row per group
GROUP_TOP = "group-top"          #: dropdown: how many groups the table lists (by time)
SELECTION_INFO = "selection-info"
ACCEPT_ALL = "accept-all"
REJECT = "reject-group"
MERGE = "merge-selected"
SPLIT = "split-group"
MOVE = "move-node"
MOVE_TARGET = "move-target"      #: dropdown: the group to move the selected node to
FORBID = "forbid-pair"
PIN = "pin-group"
UNDO = "undo"
REDO = "redo"
RESET = "reset-plan"
EDIT_MSG = "edit-message"        #: the legality checker's reason when an edit is refused

# ----- cost panel -----------------------------------------------------------------------------
COST_GROUP = "cost-group"        #: breakdown of the selected group vs unfused
COST_TOTAL = "cost-total"        #: the whole plan vs unfused
COST_BARS = "cost-bars"          #: stacked bar chart per group
ROOFLINE = "roofline"
CALIBRATION_NOTE = "calibration-note"    #: "calibrating this machine…" while the server does
CALIBRATION_POLL = "calibration-poll"    #: dcc.Interval: follows the background calibration
CALIBRATION_STATE = "calibration-state"  #: {"state", "generation"}: costs drawn again on change

# ----- explain panel --------------------------------------------------------------------------
STEP_SLIDER = "step-slider"
STEP_TEXT = "step-decision"      #: the decision at the slider's step, its reason and numbers
STEP_NOTE = "step-note"          #: why the slider moved when the plan changed (an undo)
STEP_JUMPS = "step-jumps"        #: pattern-matching id type of the jump buttons
REASON_FILTER = "reason-filter"  #: dropdown: decisions of one reason (jumps and the log)
DECISION_LOG = "decision-log"    #: dash_ag_grid.AgGrid: the decisions around the step
LOG_NOTE = "decision-log-note"   #: which decisions the log shows
XLA_TOGGLE = "xla-toggle"        #: checklist: XLA's grouping; colour by agreement
XLA_AGREEMENT = "xla-agreement"

# ----- profile panel --------------------------------------------------------------------------
PROFILE_RUN = "profile-run"
PROFILE_BACKEND = "profile-backend"  #: dropdown: auto, cpu, cuda
PROFILE_CANCEL = "profile-cancel"
PROFILE_POLL = "profile-poll"    #: dcc.Interval: reads the job's progress while one is in flight
PROFILE_PROGRESS = "profile-progress"
PROFILE_STATUS = "profile-status"
PROFILE_MSG = "profile-message"  #: compile errors and mismatches
PROFILE_SUMMARY = "profile-summary"  #: the profile's key figures, at most four lines
PROFILE_DETAILS = "profile-details"  #: html.Details under it: the rest, collapsed
PROFILE_TABLE = "profile-table"
PROFILE_MISSES = "profile-misses"  #: each missed prediction's whole text, wrapped
PROFILE_TOP = "profile-top"      #: dropdown: how many kernels the table and chart show
PROFILE_BARS = "profile-bars"
CORRECTNESS = "correctness"
FOLD_BN = "fold-batch-norms"     #: header button: fold inference batch norms into the weights
SHARE = "share-link"             #: header button: a link to this workspace state
SHARE_BOX = "share-box"          #: the link's row (hidden until a link is made)
SHARE_URL = "share-url"          #: read-only input holding the link
SHARE_COPY = "share-copy"        #: dcc.Clipboard copying the link
LINK_MSG = "link-msg"            #: what making or opening a link said (one line)
KERNEL_SOURCE = "kernel-source"
DOWNLOAD_PLAN = "download-plan"
DOWNLOAD_SOURCES = "download-sources"
DOWNLOAD_TRACE = "download-trace"
DOWNLOAD_REPORT = "download-report"
DOWNLOAD = "download"            #: the dcc.Download all four buttons use

# ----- what-if panel (knobs, a knob's sweep, tune) ----------------------------------------------
TAB_WHATIF, TAB_DIFF = "tab-whatif", "tab-diff"
WHATIF_SUMMARY = "whatif-summary"    #: the totals before and after, what changed
WHATIF_FLIPS = "whatif-flips"        #: table: the decisions that flipped
WHATIF_GROUPS = "whatif-groups"      #: table: the groups the knobs changed
WHATIF_APPLY = "whatif-apply"        #: re-plan the session on the knobbed profile
WHATIF_RESET = "whatif-reset"        #: every slider back to the profile's value
WHATIF_MSG = "whatif-message"
WHATIF_SWEEP_KNOB = "whatif-sweep-knob"  #: dropdown: the knob the sweep plot varies
WHATIF_SWEEP = "whatif-sweep"        #: dcc.Graph: predicted time vs the knob
TUNE_RUN = "tune-run"
TUNE_BUDGET = "tune-budget"          #: input: variants to measure
TUNE_SUMMARY = "tune-summary"
TUNE_TABLE = "tune-table"            #: table: each measured variant
TUNE_HISTORY = "tune-history"        #: table: the results store's measurements of this graph
TUNE_CANCEL = "tune-cancel"          #: stop the session's tune job (queued or running)
TUNE_POLL = "tune-poll"              #: dcc.Interval: reads the tune job's progress while in flight
TUNE_PROGRESS = "tune-progress"      #: html.Progress: variants measured of the budget
TUNE_STATUS = "tune-status"          #: the job's state in words ("tuning: 2 of 4 variants…")


def knob_id(knob: str) -> str:
    """The id of a knob's slider (``whatif-knob-launch_overhead_s``)."""
    return f"whatif-knob-{knob}"


# ----- diff panel -------------------------------------------------------------------------------
DIFF_A = "diff-a"                    #: dropdown: plan A (current, proposal, a policy, xla ...)
DIFF_B = "diff-b"
DIFF_SUMMARY = "diff-summary"
DIFF_TABLE = "diff-table"            #: table: one row per difference
DIFF_MSG = "diff-message"
TIME_MEMORY = "time-memory"          #: dcc.Graph: plans on time vs peak memory

# ----- pages, tour, learn (issue 16: teaching) ------------------------------------------------
URL = "url"                      #: dcc.Location: "/" the workbench, "/learn" the Learn page
MAIN_VIEW = "main-view"          #: the workbench's own view (hidden on /learn)
LEARN_VIEW = "learn-view"        #: the Learn page
LEARN_BUILT = "learn-built"      #: dcc.Store: true once the Learn page's components were added
LEARN_LINK = "learn-link"        #: the header's link to /learn
TOUR_OPEN = "tour-open"          #: header button: take the tour again
TOUR = "tour"                    #: the tour's card
TOUR_STEP = "tour-step"          #: dcc.Store: the tour's step (None: closed)
TOUR_SEEN = "tour-seen"          #: dcc.Store (local storage): the tour was closed once
TOUR_TITLE, TOUR_TEXT, TOUR_COUNT = "tour-title", "tour-text", "tour-count"
TOUR_BACK, TOUR_NEXT, TOUR_CLOSE = "tour-back", "tour-next", "tour-close"
TOUR_TARGET = "tour-target"      #: dcc.Store: the element id the tour points at
LEARN_NAV = "learn-nav"          #: the list of lessons, exercises, questions
LEARN_ITEM = "learn-item"        #: dcc.Store: {"kind": lesson|exercise|question|term, "id"}
LEARN_SECTIONS = {k: f"learn-{k}" for k in ("home", "lesson", "exercise", "question", "term")}
# lesson
LESSON_TITLE = "lesson-title"
LESSON_TEXT = "lesson-text"
LESSON_STAGE = "lesson-stage"    #: dcc.Slider over the lesson's stages
LESSON_PREV, LESSON_NEXT = "lesson-prev", "lesson-next"
LESSON_STAGE_TEXT = "lesson-stage-text"
LESSON_CYTO = "lesson-graph"     #: the lesson's canvas
LESSON_STAGE_TABLE = "lesson-stage-table"   #: this stage against unfused
LESSON_KERNELS = "lesson-kernels"           #: this stage's kernels
LESSON_MEASURED = "lesson-measured"         #: predicted against measured
LESSON_CLAIMS = "lesson-claims"
LESSON_MEASURE_POLL = "lesson-measure-poll"  #: dcc.Interval: follows the measurement job
LESSON_MEASURE_AGAIN = "lesson-measure-again"
LESSON_MEASURE_STATUS = "lesson-measure-status"
LESSON_MEASURE_PROGRESS = "lesson-measure-progress"
LESSON_MEASURE_MSG = "lesson-measure-message"
LESSON_MEASURED_VERSION = "lesson-measured-version"  #: dcc.Store: bumped when figures arrive
LESSON_OPEN_MAIN = "lesson-open-main"       #: open the lesson's graph in the workbench
LESSON_QUESTIONS = "lesson-questions"
# exercise
EX_TITLE = "exercise-title"
EX_PROMPT = "exercise-prompt"
EX_CYTO = "exercise-graph"
EX_GROUP = "exercise-group"      #: put the selected nodes in one group (a Merge edit)
EX_UNGROUP = "exercise-ungroup"  #: split the selected node's group
EX_RESET = "exercise-reset"
EX_CHECK = "exercise-check"
EX_SHOW = "exercise-show"        #: radio: your answer, the planner's plan, XLA's fusions
EX_MSG = "exercise-message"      #: the legality checker's reason for a refused group
EX_STATE = "exercise-state"      #: your groups, as a line
EX_SCORE = "exercise-score"
EX_DIFFS = "exercise-differences"
EX_VERSION = "exercise-version"  #: dcc.Store: bumped after every change of an answer
EX_PROGRESS = "exercise-progress"
# what-if
Q_TITLE = "question-title"
Q_TEXT = "question-text"
Q_DEVICE = "question-device"
Q_KNOB = "question-knob"         #: slider: log10 of the knob's value
Q_CHART = "question-chart"
Q_CHART_BOX = "question-chart-box"  #: holds Q_CHART once a question is shown (plotly loads then)
Q_ANSWER = "question-answer"
# glossary
GLOSSARY = "glossary"
