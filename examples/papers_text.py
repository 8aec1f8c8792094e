"""Text of the three example papers (written for citeloom; the studies are fictional)."""

from __future__ import annotations

from examples.make_examples import Paper

MARSH = Paper(
    citekey="ardel2023marsh",
    file="ardel2023_restored_marshes.pdf",
    title="Carbon Burial in Restored Tidal Marshes: A Five-Year Sediment Core Study",
    authors=[("Ardel", "Ines"), ("Reyes", "Tomas"), ("Halvorsen", "Sigrid")],
    year=2023,
    journal="Journal of Coastal Biogeochemistry",
    running_head="Ardel et al. · Carbon burial in restored marshes",
    doi="10.5555/clx.2023.0417",
    doi_printed=True,
    bookmarks=True,
    first_page=117,
    keywords=["blue carbon", "salt marsh", "managed realignment", "sediment accretion"],
    abstract=(
        "Restoring tidal flow to embanked farmland is promoted as a way to bury carbon, but the "
        "burial rate in the first years after a breach is poorly known. We dated sediment cores "
        "from four managed-realignment sites on a temperate estuary and compared them with two "
        "natural reference marshes. Restored sites accreted sediment two to three times faster "
        "than the reference marshes, while the organic carbon density of the new sediment was "
        "lower. Net carbon burial in restored sites nevertheless exceeded that of the reference "
        "marshes in every year of the study."
    ),
    sections=[
        (
            1,
            "1 Introduction",
            [
                "Coastal wetlands store carbon in their soils for centuries, and salt marshes are among "
                "the most efficient of them per unit area. Much of the marsh area lost over the last "
                "two centuries was embanked for grazing and arable land. Managed realignment reverses "
                "this: the sea wall is breached on purpose, the tide returns, and mudflat and marsh "
                "develop on the former fields.",
                "Whether such sites bury carbon quickly enough to matter for climate policy depends on "
                "two quantities that change as a site matures: how fast mineral sediment arrives, and "
                "how much organic carbon each centimetre of new sediment holds. Studies that measure "
                "only one of them can reach opposite conclusions about the same site.",
                "This paper reports both quantities for the first five years after breaching at four "
                "sites, using the same coring and dating protocol at restored and reference marshes.",
            ],
        ),
        (1, "2 Study Sites and Methods", []),
        (
            2,
            "2.1 Site selection",
            [
                "The four restored sites lie on the northern shore of a macrotidal estuary with a mean "
                "spring tidal range of 5.2 metres. They were breached between 2016 and 2018 and cover "
                "between 18 and 61 hectares. Two natural marshes on the same shore, never embanked, "
                "served as references. Elevation surveys before breaching showed that all restored "
                "sites lay 0.6 to 1.1 metres below the elevation of the reference marsh platform, the "
                "consequence of decades of drainage and compaction.",
            ],
        ),
        (
            2,
            "2.2 Core sampling and dating",
            [
                "At each site we took twelve cores of 50 centimetres along transects from the breach "
                "to the landward edge. Cores were sliced at one-centimetre intervals. The former field "
                "surface was identified by its root mat and plough marks, which gives an unambiguous "
                "date for the base of the new sediment. In reference marshes we dated sediment with "
                "lead-210 and checked the profiles against the caesium-137 peak of 1963.",
                "Organic carbon was measured by elemental analysis after removing carbonates with "
                "acid fumigation. Dry bulk density was measured on every slice, so that carbon density "
                "could be computed slice by slice rather than from site averages.",
            ],
        ),
        (1, "3 Results", []),
        (
            2,
            "3.1 Accretion rates",
            [
                "Restored sites accreted a mean of 6.8 millimetres of sediment per year over the five "
                "years, against 2.4 millimetres per year in the reference marshes. Accretion was "
                "fastest near the breach and in the lowest parts of each site, and it slowed as the "
                "surface rose towards the elevation at which pioneer vegetation establishes.",
                "The site breached last accreted fastest in its first year, 14 millimetres, which we "
                "attribute to its larger tidal prism and to a winter of frequent storm surges.",
            ],
        ),
        (
            2,
            "3.2 Carbon density",
            [
                "The organic carbon density of new sediment in restored sites averaged 0.021 grams per "
                "cubic centimetre, about two thirds of the 0.031 grams per cubic centimetre found in "
                "the upper 10 centimetres of the reference marshes. Carbon density rose with time "
                "since breaching at every restored site as vegetation cover increased.",
                "Multiplying accretion by carbon density gives net burial of 143 grams of carbon per "
                "square metre per year in restored sites and 74 grams in reference marshes.",
            ],
        ),
        (
            1,
            "4 Discussion",
            [
                "Fast mineral accretion outweighs the low carbon density of young sediment. Part of "
                "the buried carbon is allochthonous, eroded elsewhere in the estuary, and would "
                "partly have been preserved anyway; our burial figures are therefore an upper bound "
                "on the additional carbon removed from the atmosphere.",
                "The rate of accretion falls as sites gain elevation, so the advantage of restored "
                "sites is transient. Models that extrapolate first-year rates over decades will "
                "overstate the benefit of managed realignment.",
            ],
        ),
        (
            1,
            "5 Conclusions",
            [
                "In their first five years, restored tidal marshes buried about twice as much carbon "
                "per unit area as natural marshes on the same estuary. Reporting accretion and carbon "
                "density together, from dated cores, avoids the contradictory conclusions of studies "
                "that measure only one of them.",
            ],
        ),
    ],
)

QUIET = Paper(
    citekey="lindqvist2021quiet",
    file="lindqvist2021_quiet_hours.pdf",
    title="Quiet Hours: Measuring Interruptions in Open-Plan Research Offices",
    authors=[("Lindqvist", "Mara"), ("Okafor", "Chidi")],
    year=2021,
    journal="Proceedings of the Workshop on Research Practice",
    running_head="Lindqvist and Okafor · Quiet hours",
    two_columns=True,
    first_page=45,
    keywords=["interruptions", "open-plan office", "deep work"],
    abstract=(
        "Open-plan offices are common in research institutes, yet the cost of interruptions to "
        "scientific work is rarely measured directly. We logged interruptions for 38 researchers "
        "over eight weeks, before and after introducing two protected quiet hours per day. "
        "Interruptions during quiet hours fell by 71 percent and the longest uninterrupted "
        "stretch of work doubled, without a measurable loss of collaboration."
    ),
    sections=[
        (
            1,
            "1 Introduction",
            [
                "Research work alternates between solitary concentration and conversation. An open "
                "office makes conversation cheap, but every conversation is also an interruption for "
                "someone nearby. The cost of resuming a complex task after an interruption is well "
                "documented in laboratory studies; field measurements in research settings are few.",
                "We asked a simple question: if a group agrees on protected hours without talk, do "
                "interruptions fall, and does anything else suffer?",
            ],
        ),
        (
            1,
            "2 Related Work",
            [
                "Laboratory studies of task switching show that resuming an interrupted task costs "
                "time and errors, and that the cost grows with the complexity of the task and the "
                "length of the interruption. Office studies in software companies found that "
                "developers rarely work more than a quarter of an hour without an interruption, and "
                "that interruptions cluster around shared spaces such as kitchens and printers.",
                "Interventions have ranged from visual signals, a lamp on the desk that tells "
                "colleagues not to disturb, to whole-building redesigns. Signals depend on every "
                "colleague honouring them individually; agreed quiet hours make the rule collective "
                "and predictable, which is why we chose them.",
                "Research settings differ from companies in one respect that matters here: much of "
                "the work is long, self-directed analysis or writing, with no external deadline for "
                "the day. We know of no field study that measured interruptions in such a setting "
                "before and after an intervention.",
            ],
        ),
        (1, "3 Method", []),
        (
            2,
            "3.1 Participants and setting",
            [
                "Thirty-eight researchers in two open-plan rooms of a university institute took part: "
                "doctoral students, postdoctoral fellows and three group leaders. Desks were arranged "
                "in clusters of six. Participation was voluntary and the study was approved by the "
                "institute's ethics committee.",
            ],
        ),
        (
            2,
            "3.2 Logging interruptions",
            [
                "Participants pressed a key on a small desk counter whenever their work was "
                "interrupted by a person, a call or a message that demanded an immediate answer. A "
                "second key recorded the moment they resumed the original task. The counters stored "
                "timestamps only, never content.",
                "After four baseline weeks, the group adopted quiet hours from 9 to 11 in the morning, "
                "during which talk moved to a separate room and messages were answered afterwards.",
            ],
        ),
        (
            1,
            "4 Results",
            [
                "During the baseline weeks participants logged a median of 11 interruptions per day. "
                "In the quiet-hours weeks the number of interruptions during the protected hours fell "
                "by 71 percent, and the total per day fell by 34 percent: interruptions were not "
                "merely postponed to the afternoon.",
                "The longest uninterrupted stretch of work per day rose from a median of 47 minutes to "
                "a median of 96 minutes. Resumption time after an interruption, measured from the two "
                "key presses, did not change, which suggests that the gain came from fewer "
                "interruptions rather than easier recovery.",
                "The effect differed between roles. Group leaders logged the most interruptions in "
                "the baseline weeks and saw the smallest reduction, because many of their "
                "interruptions were calls from outside the group. Doctoral students saw the largest "
                "reduction, 82 percent during the protected hours.",
                "Collaboration, measured by the number of scheduled and unscheduled meetings in the "
                "separate room, was the same in both periods.",
            ],
        ),
        (
            1,
            "5 Discussion",
            [
                "Quiet hours are cheap to introduce and easy to reverse. The main risk is that urgent "
                "questions from junior researchers go unasked; in our follow-up interviews doctoral "
                "students reported saving questions for the afternoon rather than abandoning them.",
                "Our counters depended on participants noticing and recording interruptions. "
                "Self-recording probably undercounts brief interruptions, and it may itself change "
                "behaviour; both effects apply to baseline and intervention alike.",
                "Eight weeks is short. Novelty may have made participants more careful in the first "
                "quiet-hours weeks; a longer follow-up would show whether the agreement erodes. The "
                "two rooms belonged to one institute with a culture that already valued quiet work, "
                "and a group that does not share it may find the rule harder to keep.",
            ],
        ),
        (
            1,
            "6 Conclusion",
            [
                "Two protected quiet hours a day cut interruptions substantially and doubled the "
                "longest stretch of focused work, without reducing collaboration. We recommend that "
                "research groups in open-plan offices try them for a month and measure the result.",
            ],
        ),
    ],
)

NOTEBOOK = Paper(
    citekey="tanabe2022notebooks",
    file="tanabe2022_field_notebooks.pdf",
    title="A Lightweight Protocol for Reproducible Field Notebooks",
    authors=[("Tanabe", "Yuki")],
    year=2022,
    journal="Methods in Field Science",
    running_head="Tanabe · Reproducible field notebooks",
    doi="10.5555/mfs.2022.118",
    doi_printed=False,
    keywords=["field notes", "reproducibility", "data provenance"],
    abstract=(
        "Field observations often survive only as handwritten notebooks whose pages cannot be "
        "linked to the data files derived from them. We describe a protocol of four habits, "
        "page identifiers, daily checksums, photographed spreads and a provenance table, that "
        "links every derived value to a notebook page. In a two-season trial with eleven field "
        "assistants, the share of data values traceable to a page rose from 58 to 97 percent."
    ),
    sections=[
        (
            1,
            "1 Background",
            [
                "A field notebook is the primary record of an observation, and every later data file "
                "is a transcription of it. When transcription errors are suspected, the notebook page "
                "must be found again, often years later and by someone else. Without identifiers that "
                "survive transcription, that search is slow and sometimes impossible.",
            ],
        ),
        (1, "2 The Protocol", []),
        (
            2,
            "2.1 Page identifiers",
            [
                "Every notebook receives a short code, and every page is numbered by hand before the "
                "season begins. The page identifier, notebook code plus page number, is written next "
                "to each observation and copied into every data file row derived from it.",
            ],
        ),
        (
            2,
            "2.2 Daily checksums",
            [
                "At the end of each day the observer counts the observations recorded on each page "
                "and writes the count in the margin. During transcription the same count is computed "
                "from the data file; a mismatch flags a missing or duplicated row before the paper "
                "record leaves the field.",
            ],
        ),
        (
            2,
            "2.3 Photographed spreads",
            [
                "Each evening every written spread is photographed with the page identifiers visible. "
                "The photographs are the backup of the notebook and let anyone check a value without "
                "handling the original.",
            ],
        ),
        (
            2,
            "2.4 The provenance table",
            [
                "A small table maps each data file to the notebook pages it was transcribed from, "
                "with the name of the transcriber and the date. It is the only new document the "
                "protocol adds, and it is what makes a value traceable in one lookup.",
            ],
        ),
        (
            1,
            "3 Field Trial",
            [
                "Eleven field assistants used the protocol for two seasons of vegetation surveys. We "
                "drew 400 values at random from the final data set of each season and tried to find "
                "the page each came from. Before the protocol, 58 percent of values could be traced "
                "to a page; with it, 97 percent could. Daily checksums caught 23 transcription "
                "errors during the second season, most of them skipped rows.",
                "Assistants estimated that the protocol added about ten minutes to a field day, "
                "mostly for photographing spreads.",
            ],
        ),
        (
            1,
            "4 Discussion",
            [
                "None of the four habits is new; their value lies in using them together so that each "
                "covers the failure of another. Page identifiers without checksums do not catch "
                "missing rows, and checksums without photographs cannot settle which of two records "
                "is wrong. The protocol needs no software beyond a camera and a spreadsheet, which "
                "makes it suitable for remote sites without power.",
            ],
        ),
    ],
)

PAPERS = [MARSH, QUIET, NOTEBOOK]
