"""The slots a restatement gets wrong, each read on both sides: names in their role, bounds
(only, every, will), values bound to their words, directions bound to their words. Each
case is the kind of miscitation a careless author makes, or the kind of correct paraphrase
a checker must not call wrong."""

from __future__ import annotations

from citeloom.domain.bindings import misbound, renamed, retied
from citeloom.domain.claims import claim_numbers, compare_facts, negation_facts, number_facts
from citeloom.domain.directions import direction_facts
from citeloom.domain.name_swaps import labels, said_otherwise, swapped_names
from citeloom.domain.name_ties import crossed_pairs
from citeloom.domain.names import names
from citeloom.domain.qualifiers import deferred_in, qualifier_facts
from citeloom.domain.quantities import quantities
from citeloom.domain.text import fold


def test_a_name_in_the_same_role_is_a_swap_and_a_name_in_another_role_is_not():
    claim = "The representative of company A pressed for an automated tool."
    page = "Representative from company B stressed on developing an automated tool."
    assert [(d.draft, d.page) for d in swapped_names(claim, page)] == [("company A", "company B")]
    # the sentence names another thing, doing something else: no swap
    claim = "Fitting the observed CMB spectrum requires an ultra-light boson."
    page = "The mass of the ULBDM must be five orders of magnitude greater than its temperature."
    assert swapped_names(claim, page) == ()


def test_a_name_said_another_way_is_the_same_name():
    assert said_otherwise("Swedish", "a city located in Sweden", {})  # type: ignore[arg-type]
    assert said_otherwise("HR", "the hazard ratio was 0.96", {})  # type: ignore[arg-type]
    assert said_otherwise("R381E", "upon mutating Arg 381 to Glu", {})  # type: ignore[arg-type]
    assert not said_otherwise("ESOL", "the AqSolDB curated database", {})  # type: ignore[arg-type]
    # "En-It" abbreviates "English-Italian": no rival
    claim = "The English-Italian runs scored highest among the pairs."
    page = "The En-It runs scored highest among the language pairs."
    assert swapped_names(claim, page) == ()


def test_a_name_the_paper_never_mentions_or_that_the_claim_says_in_words_is_no_rival():
    # CR abbreviates the claim's own "consistency ratio": the sentence says it too
    claim = "In the MDRPM example, the consistency ratio is 0.18 divided by 0.9."
    page = "The Consistency Ratio (CR) for this example is: CR = 0.18 / 0.9."
    assert swapped_names(claim, page) == ()
    # a name of the writer's own, which the paper never uses, is no other entity of it
    claim = "The representative of firm A pressed for an automated tool."
    page = "Representative from company B stressed on developing an automated tool."
    assert swapped_names(claim, page, paper=fold("company A and company B")) == ()
    assert labels("company A and model 3 in Table 2") == ["company A", "model 3"]


def test_bounds_only_every_and_a_plan_are_slots_of_their_own():
    against, _ = qualifier_facts(
        "To evaluate the model only static validation techniques are used.",
        "In this section a summary of static and dynamic validation results is presented.",
    )
    assert against and against[0].draft.startswith("only")
    against, _ = qualifier_facts(
        "The effect was significant for every relation.",
        "The effect was significant for all relations except one.",
    )
    assert [(d.draft, d.page) for d in against] == [("every relation", "except one")]
    assert deferred_in(
        "In the next version of TIMP a function to allow multidataset model specification in "
        "a single step will be included.",
        "TIMP already offers a function for multidataset model specification in a single step.",
    )
    # a hedge on a reading is no plan: "may indicate" is what the page finds
    assert not deferred_in(
        "This observation may indicate poor functioning of the referral system.",
        "The authors read it as a sign of a poorly functioning referral system.",
    )
    # a claim that keeps the plan agrees with it
    against, _ = qualifier_facts(
        "The authors plan to support varying zone sizes.",
        "Our future work will extend our research to support varying zone sizes.",
    )
    assert against == []


def test_only_after_bounds_a_time_not_what_the_claim_is_about():
    _, missing = qualifier_facts(
        "Data transmission began only after the first five seconds.",
        "The first 5 seconds are to construct zones, followed by data transmission.",
    )
    assert missing == []


def test_a_value_given_to_another_thing_of_the_sentence_is_moved():
    claim = "223 genes showed evidence of human-specific positive selection under model A."
    page = (
        "Of the 7,918 genes analyzed, 223 genes showed evidence of mouse-specific positive "
        "selection, and finally 80 showed evidence of human-specific positive selection."
    )
    moved = misbound(claim, page, claim_numbers(claim))
    assert [d.page for d in moved] == ["80 showed evidence (human)"]
    claim = "The parent inhibitor RXP407 bound the N-domain with a Ki of 11.21 nM."
    page = (
        "Compound 33RE (Ki = 11.21 nM) was in a similar range to parent molecule RXP407 "
        "(Ki = 21.03 nM)."
    )
    assert misbound(claim, page, claim_numbers(claim))
    # the value beside the claim's own words: nothing moved
    claim = "Compound 33RE inhibited the N-domain with a Ki of 11.21 nM."
    assert misbound(claim, page, claim_numbers(claim)) == []


def test_a_value_given_to_the_name_of_another_clause_is_moved():
    page = (
        "Sarker et al 32 selected 90 days as an end point in his study, and Vijayan et al 31 "
        "selected 30 days (1 month) as an end point."
    )
    claim = "Of the pooled trials, the one by Vijayan et al. chose 90 days as its end point."
    assert [d.page for d in misbound(claim, page, claim_numbers(claim))] == ["30 days (vijayan)"]
    claim = "Of the pooled trials, the one by Sarker et al. chose 90 days as its end point."
    assert misbound(claim, page, claim_numbers(claim)) == []
    # an ordinary word speaks of both clauses: "developed" is the 423's and the 240's
    page = "During follow-up, 423 participants developed dementia, of whom 240 (57%) had AD."
    claim = "During follow-up, 423 participants developed dementia; 240 of them developed AD."
    assert misbound(claim, page, claim_numbers(claim)) == []


def test_directions_are_read_for_the_words_they_are_about():
    page = (
        "For bosons, the amplitudes of the first and second peaks are reduced, albeit the "
        "third peak is increased."
    )
    wrong = direction_facts("Bosonic matter makes the first and second peaks higher.", page)
    assert [d.draft for d in wrong] == ["higher"]
    right = "Bosonic matter lowers the first and second peaks but raises the third."
    assert direction_facts(right, page) == []
    # a comparison is an order: the same way with its sides swapped is reversed
    page = "The statistics show higher patient volumes at night than in the day."
    assert direction_facts("The ward handled more patients during the day than at night.", page)
    assert (
        direction_facts("The ward handled fewer patients during the day than at night.", page) == []
    )
    # a sequence in time is no direction
    assert (
        direction_facts(
            "Seedlings were kept cold for six weeks before planting.",
            "After six weeks of cold, the seedlings were planted.",
        )
        == []
    )


def test_a_negation_in_other_words_agrees_and_a_negated_clause_denies_its_affirmation():
    against, _ = negation_facts(
        "Client scripts can write their results back into Bigtable.",
        "Our Sawzall-based API does not allow client scripts to write back into Bigtable.",
        "Our Sawzall-based API does not allow client scripts to write back into Bigtable.",
    )
    assert against
    page = "This may indicate the lack of patient trust in the first levels of care."
    against, _ = negation_facts("It reflects low trust in lower levels of care.", page, page)
    assert against == []


def test_a_fraction_is_one_value_and_an_index_is_none():
    assert [q.value for q in quantities("assumed to be w = 1/3, as for radiation")] == [1 / 3]
    assert [q.text for q in quantities("the density today n(0) ∼ 100cm-3")] == ["100cm-3"]


def test_a_possibility_on_the_page_is_not_stated_as_a_finding():
    page = (
        "It is possible that the volume deceleration parameter q vol becomes negative only "
        "after averaging over scales which are larger than 100 Mpc."
    )
    claim = (
        "Bolejko and Andersson showed that the volume deceleration parameter becomes negative "
        "once the averaging is done over scales larger than 100 Mpc."
    )
    against, missing = qualifier_facts(claim, page)
    assert against == [] and [(d.draft, d.page) for d in missing] == [
        ("as a finding", "it is possible that")
    ]
    # a claim that keeps the hedge states no more than the page
    hedged = "Averaging over scales beyond 100 Mpc may make the deceleration parameter negative."
    assert qualifier_facts(hedged, page) == ([], [])
    # what was proposed is not hedged by being proposed: "the proposal that GPs might ..."
    page = (
        "The participants were unenthusiastic about the proposal that GPs might provide heart "
        "failure rehabilitation programmes."
    )
    claim = "Participants were lukewarm about GPs delivering heart failure rehabilitation."
    assert qualifier_facts(claim, page) == ([], [])


def test_a_claim_reporting_the_authors_reading_keeps_the_page_s_hedge():
    page = (
        "Both for English and German, our validation system outperforms the best QA systems, "
        "which suggests the necessity of the validation step."
    )
    claim = (
        "Their validation system outperformed the strongest QA systems for both English and "
        "German, which they take as evidence that a validation step is needed."
    )
    assert qualifier_facts(claim, page) == ([], [])
    claim = "Their validation system beat the best QA systems, so a validation step is needed."
    assert [d.draft for d in qualifier_facts(claim, page)[1]] == ["as a finding"]


def test_a_number_in_words_is_missing_where_the_passage_gives_another():
    passage = (
        "Fifteen participants took part, seven from the rural hospital and eight from the "
        "urban hospital. In the rural hospital all participants were male and in the urban "
        "hospital five of the eight participants were also male."
    )
    core = passage.split(". ", maxsplit=1)[0] + "."
    claim = (
        "Of the fifteen participants, the seven from the rural hospital were all men, as "
        "were six of the eight recruited at the urban hospital."
    )
    against, missing = number_facts(claim_numbers(claim, ()), passage, core)
    assert against == [] and [d.draft for d in missing] == ["six"]
    # with no rival figure, a number in words is how a writer counts: "two models"
    passage = "We trained a random forest and a GRU network on the permeation data."
    claim = "Two models were trained on the permeation data."
    assert number_facts(claim_numbers(claim, ()), passage, passage) == ([], [])


def test_will_in_a_method_description_is_no_plan():
    # a method says what each step does with "will"; that is not a version yet to come
    core = "Each answer will have one supporting document where the answer comes from."
    claim = "Each candidate answer comes with the document that supports it."
    assert deferred_in(core, claim) == ""
    # a thing that "will be added" is still a plan
    core = "The system will be extended to support distributed transactions."
    claim = "The system supports distributed transactions."
    assert deferred_in(core, claim)


def test_a_noun_in_another_form_is_the_same_thing_counted():
    # "three fungal species" is stated by "3 fungi", not contradicted by a reference marker
    page = (
        "The antimicrobial activity of the Kupchan fractions was determined by the disc "
        "diffusion method 9 against thirteen bacteria (Bacillus cereus, B. subtilis) and "
        "3 fungi (Candida albicans, Aspergillus niger)."
    )
    claim = (
        "The Kupchan fractions were screened by disc diffusion against thirteen bacterial and "
        "three fungal species."
    )
    against, missing = number_facts(claim_numbers(claim, ()), page, page)
    assert against == [] and missing == []


def test_an_unconfirmed_claim_names_the_page_s_hedge():
    from citeloom.domain.alignment import Judgement
    from citeloom.domain.facts import Difference, Facts
    from citeloom.domain.qualifiers import AS_A_FINDING

    hedged = Facts(missing=(Difference("term", AS_A_FINDING, "it is possible that"),))
    assert Judgement("unconfirmed", None, hedged).possibility == "it is possible that"
    assert Judgement("unconfirmed", None, Facts()).possibility == ""
    assert Judgement("supported", None, hedged).possibility == ""


def test_a_value_tied_by_a_preposition_to_one_name_is_not_the_other_s():
    page = (
        "Dropping the cache raised latency: by 14.5% on the Alpha cluster and 31.2% on the "
        "Beta cluster, as Table 3 shows."
    )
    moved = "Without the cache, latency on the Beta cluster went up 14.5%."
    assert [(d.draft, d.page) for d in retied(moved, page, quantities(moved))] == [
        ("14.5% (Beta)", "31.2% (Beta)")
    ]
    for kept in (
        "Without the cache, latency on the Alpha cluster went up 14.5%.",
        "Latency rose 14.5% on Alpha and 31.2% on Beta once the cache was dropped.",
    ):
        assert retied(kept, page, quantities(kept)) == []


def test_a_dropped_non_turns_the_page_around():
    page = "The filter is applied to all non-empty bins of the histogram."
    facts = negation_facts("The filter covers every bin, empty ones included.", page, page)
    assert [(d.draft, d.page) for d in facts[0]] == [("empty", "non-empty")]
    for kept in (
        "Only the non-empty bins of the histogram are filtered.",
        "Bins that are not empty are filtered.",
    ):
        assert negation_facts(kept, page, page)[0] == []


def test_a_movement_run_the_other_way_is_a_reversed_direction():
    page = "As the temperature rises, the ions migrate from the outer layer to the inner core."
    wrong = "Heating drives the ions out of the inner core into the outer layer."
    assert [d.kind for d in direction_facts(wrong, page)] == ["direction"]
    right = "Heating moves the ions from the outer layer into the inner core."
    assert direction_facts(right, page) == []
    # a range of figures moves nothing
    assert direction_facts("The dose went from 5 to 10 mg.", "The dose rose from 10 to 5 mg.") == []


def test_a_value_beside_its_interval_is_bound_past_the_brackets():
    page = (
        "The mean gain was 4.12 kg (95% CI 1.05 to 7.19 kg, p=0.01) in the Diet arm versus "
        "2.37 kg (95% CI 0.81 to 3.93 kg, p=0.003) in the Exercise arm."
    )
    moved = "Participants of the Exercise arm gained 4.12 kg on average."
    assert [(d.draft, d.page) for d in misbound(moved, page, quantities(moved))] == [
        ("4.12 kg (exercise)", "2.37 kg (exercise)")
    ]
    kept = "Participants of the Exercise arm gained 2.37 kg on average."
    assert misbound(kept, page, quantities(kept)) == []


def test_two_names_each_given_the_other_s_partner_are_swapped():
    page = (
        "Tagging uses TreeTagger (Schmid, 1994) for English and RFTagger (Schmid, 2008) for German."
    )
    swapped = "The pipeline tags with RFTagger for English and with TreeTagger for German."
    assert [(d.draft, d.page) for d in crossed_pairs(swapped, page)] == [
        ("RFTagger for English", "TreeTagger for English")
    ]
    for kept in (
        "English text goes through TreeTagger and German text through RFTagger.",
        "TreeTagger is used for English, and RFTagger for German.",
        "RFTagger and TreeTagger serve German and English respectively.",
    ):
        assert crossed_pairs(kept, page) == []


def test_a_finding_credited_to_another_cited_author_is_a_swap():
    core = "Okafor et al. (2015) reported that night shifts raised resting blood pressure."
    claim = "Lindqvist and colleagues showed that working night shifts pushes blood pressure up."
    assert [(d.draft, d.page) for d in swapped_names(claim, core)] == [("Lindqvist", "Okafor")]
    kept = "Okafor and colleagues showed that working night shifts pushes blood pressure up."
    assert swapped_names(kept, core) == ()


def test_a_figure_keeps_the_direction_written_beside_it():
    page = (
        "Cost is 4.2 times more important than speed, and speed is 2.5 times less important "
        "than cost."
    )
    turned = "The survey found speed 2.5 times more important than cost."
    assert [(d.draft, d.page) for d in direction_facts(turned, page)] == [
        ("2.5 times more", "2.5 times less")
    ]
    kept = "Speed came out 2.5 times less important than cost."
    assert direction_facts(kept, page) == []


def test_a_page_negation_is_answered_by_one_governing_its_clause_s_words():
    page = (
        "Logistic regression found no link between the number of night shifts worked per "
        "month and the later incidence of migraine (OR 1.02, 95% CI 0.97-1.08)."
    )
    claim = "The number of monthly night shifts did not predict migraine incidence."
    assert negation_facts(claim, page, page)[0] == []
    wrong = "The number of monthly night shifts predicted migraine incidence."
    assert [d.page for d in negation_facts(wrong, page, page)[0]] != []


def test_without_a_treatment_denies_the_treatment_not_a_word_beginning_alike():
    page = "Without thromboprophylaxis, the rate of thrombosis after hip surgery is substantial."
    claim = "Thrombosis is frequent after hip surgery."
    assert negation_facts(claim, page, page)[0] == []


def test_a_verb_between_a_name_and_its_partner_keeps_the_pair():
    page = "Parses come from Minipar (Lin, 1998) for English and from SMES for German."
    swapped = "The parser SMES produces for English and Minipar produces for German."
    assert [(d.draft, d.page) for d in crossed_pairs(swapped, page)] == [
        ("SMES for English", "Minipar for English")
    ]


def test_a_hyphenated_name_of_people_is_a_name_of_one_kind_with_a_single_one():
    core = "In the static limit the wave equation reduces to the Dirac equation for the electron."
    claim = "In the static limit the equation becomes the Klein-Gordon equation for the electron."
    assert [(d.draft, d.page) for d in swapped_names(claim, core)] == [("Klein-Gordon", "Dirac")]


def test_a_measure_at_a_cut_off_is_a_name_a_value_is_tied_to():
    page = "The model gains 12.40% in Recall@10 and 18.75% in Recall@100 over the baseline."
    moved = "Against the baseline, Recall@10 rose by 18.75%."
    assert [(d.draft, d.page) for d in retied(moved, page, quantities(moved))] == [
        ("18.75% (Recall@10)", "12.40% (Recall@10)")
    ]
    page = "The model achieves a 12.40% improvement in Recall@10 over the baseline."
    assert retied(moved, page, quantities(moved)) == []


def test_rather_than_denies_what_follows_it():
    page = "The absence of a double doublet and the appearance of a triplet placed the hydroxyl."
    claim = "The proton gave a triplet rather than a double doublet."
    assert negation_facts(claim, page, page)[0] == []
    page = "The protocol supports zones of one fixed size only."
    claim = "The protocol supports zones of varying size rather than one fixed size."
    facts = negation_facts(claim, page, page)
    assert facts[0] or facts[1]  # the claim denies what the page states: not agreed


def test_a_negation_ends_where_a_new_subject_begins():
    page = "This extra step is not necessary and a simpler model can be built from (4)."
    claim = "The authors skip the extra step and build a simpler model from equation 4."
    assert negation_facts(claim, page, page)[0] == []


def test_a_comparison_s_subject_may_open_its_clause_or_be_abbreviated():
    page = "Drug-based therapy gave a better response in terms of pain scores than physiotherapy."
    swapped = "In this review, physiotherapy gave a better pain response than drug-based therapy."
    assert [d.kind for d in direction_facts(swapped, page)] == ["direction"]
    kept = "In this review, drug-based therapy gave a better pain response than physiotherapy."
    assert direction_facts(kept, page) == []
    page = "Across all sites, RFP was better than SGD at recovering the rare species."
    swapped = "Stochastic gradient descent found rare species better than random forest pruning."
    assert [d.page for d in direction_facts(swapped, page)] == ["than sgd recovering"]


def test_not_only_but_also_is_no_restriction_and_no_negation():
    page = "To avoid bias we searched not only PubMed but also Embase and Scopus."
    narrowed = "The authors restricted their literature search to PubMed."
    assert [d.kind for d in qualifier_facts(narrowed, page)[0]] == ["term"]
    kept = "The search covered PubMed as well as Embase and Scopus."
    assert qualifier_facts(kept, page)[0] == []


def test_a_finding_reported_by_a_verb_is_credited_too():
    # a name with accents the text layer set apart, and credit given by verbs, not "et al."
    core = "A similar result was presented by Kov´ acs [8], who showed that the loop closes."
    claim = "Brennan demonstrated that the feedback loop closes on itself."
    assert [(d.draft, d.page) for d in swapped_names(claim, core)] == [("Brennan", "Kovács")]
    kept = "Kovács demonstrated that the feedback loop closes on itself."
    assert swapped_names(kept, core) == ()
    # what did the finding is no person: "Experiments showed" credits nobody
    assert swapped_names("Experiments showed that the feedback loop closes.", core) == ()


def test_a_structured_abstract_s_heading_does_not_make_the_next_word_a_name():
    core = (
        "Results: Nurse shortages, staff attitudes and shortage of beds were identified as "
        "major barriers to patient care."
    )
    claim = (
        "The audit at Larkfield General Hospital's Surgical Unit identified shortages of staff "
        "and beds as the main barriers to patient care."
    )
    assert names(core) == []
    assert swapped_names(claim, core) == ()
    assert names("We used two tools: Maple and Kano.") == ["Maple", "Kano"]


def test_a_residue_position_is_no_value_and_a_word_between_two_values_binds_neither():
    page = "Replacing Lys 212 with Ala gave a 5-fold drop, and Ser 97 with Ala a 12-fold drop."
    assert [q.value for q in quantities(page)] == [5.0, 12.0]
    claim = "The Lys212-to-Ala change caused a 5-fold drop."
    assert misbound(claim, page, claim_numbers(claim)) == []
    # "widths" stands as near the 3 as the 900: it says which list the 3 belongs to no more
    # than the other's
    page = "The lines sit at 400 and 900, with widths 50 and 70 and depths 1 and 3."
    claim = "The two lines have depths of 1 and 3 and widths of 50 and 70."
    assert misbound(claim, page, claim_numbers(claim)) == []


def test_a_value_given_for_a_name_the_page_gives_another_value_is_a_mismatch():
    page = "Our tagger reaches 91% accuracy, beating TnT by 4% and HunPos by 12%."
    claim = "The tagger scored 91%, 4% above TnT and 15% above HunPos."
    assert [(d.draft, d.page) for d in renamed(claim, page, claim_numbers(claim))] == [
        ("15% (HunPos)", "12% (HunPos)")
    ]
    kept = "The tagger scored 91%, 4% better than TnT and 12% better than HunPos."
    assert renamed(kept, page, claim_numbers(kept)) == []
    # a name the page gives two values decides nothing
    page = "HunPos gains 3% on news and HunPos gains 9% on tweets."
    claim = "HunPos gains 5% over TnT."
    assert renamed(claim, page, claim_numbers(claim)) == []


def test_a_tool_the_paper_never_names_in_the_place_of_one_of_its_kind_is_a_swap():
    core = "Models are selected with ProtTest and trees are inferred with RAxML."
    paper = fold(core)
    claim = "The pipeline selects the models with AminoTest before inferring trees with RAxML."
    assert [(d.draft, d.page) for d in swapped_names(claim, core, paper=paper)] == [
        ("AminoTest", "ProtTest")
    ]
    # a name of the writer's own of no kind the page names is no swap
    claim = "The pipeline selects the models with Gblocks before inferring trees with RAxML."
    assert swapped_names(claim, core, paper=paper) == ()


def test_a_multiple_of_pi_is_a_value():
    page = "Even at the highest power we still observe coherent rotations up to 22π."
    assert [q.text for q in quantities(page)] == ["22π"]
    claim = "Coherent rotations were seen up to 12π even at the highest power."
    against, _ = number_facts(claim_numbers(claim), page, page)
    assert [(d.draft, d.page) for d in against] == [("12π", "22π")]


def test_a_word_across_a_comma_is_another_clause_s_and_a_bracketed_label_no_count():
    page = (
        "Of the 1,204 pupils first enrolled, 61 had missing test scores and 12 moved away, "
        "leaving 1,131 for analysis."
    )
    claim = (
        "From 1,204 pupils first enrolled, exclusions for missing scores, relocation and "
        "dropout left 1,131."
    )
    assert misbound(claim, page, claim_numbers(claim)) == []
    page = "Here the heavy ion (species 2) is fixed while the light ion (species 1) moves."
    assert quantities(page) == []
    claim = "The model fixes one heavy ion and lets the light ion move."
    assert misbound(claim, page, claim_numbers(claim)) == []


def test_a_sentence_stating_one_of_the_claim_s_figures_states_the_claim_too():
    passage = (
        "Begg's test gave a bias coefficient of 0.91 for the pain trials (p=0.41). "
        "The coefficient of the sleep trials was 0.77 (p=0.52), which showed a lack of "
        "publication bias."
    )
    core = "Begg's test gave a bias coefficient of 0.91 for the pain trials (p=0.41)."
    claim = "Begg's test found publication bias, with coefficients of 0.91 and 0.77."
    assert [d.kind for d in compare_facts(claim, passage, core).contradictions] == ["negation"]
    kept = "Begg's test found no publication bias, with coefficients of 0.91 and 0.77."
    assert compare_facts(kept, passage, core).contradictions == ()
    # "free of" answers "without", and asks the page for no negation of its own: a claim
    # "free of diabetes at baseline" is not denied by a sentence on who developed it
    page = "Of 940 adults without diabetes at baseline, 81 developed it."
    claim = "Of 940 adults free of diabetes at baseline, 81 went on to develop diabetes."
    assert negation_facts(claim, page, page)[0] == []
    page = "During follow-up, 81 adults developed diabetes."
    assert negation_facts(claim, page, page)[0] == []


def test_a_word_the_sentence_writes_in_two_forms_binds_no_value():
    page = (
        "The Surgical Unit has a bed capacity of 42 and the entire LGH has over 600 beds in total."
    )
    claim = (
        "The Surgical Unit at Larkfield General Hospital, a referral centre for about 2 million "
        "people, has 42 beds out of the hospital's total of more than 600."
    )
    assert misbound(claim, page, claim_numbers(claim)) == []


def test_a_name_the_page_pairs_with_nothing_given_another_name_s_partner_is_a_swap():
    page = (
        "For NE recognition, we use StanfordNER (Finkel, 2005) for English and SPPC (Neumann, "
        "2002) for German; and for question analysis, we use the SMES system."
    )
    claim = "The system used StanfordNER on English and the SMES system on German."
    assert [(d.draft, d.page) for d in crossed_pairs(claim, page)] == [
        ("SMES for German", "SPPC for German")
    ]
    # the page's name written apart by the claim ("Stanford NER") is no other name
    kept = "The system relied on the Stanford NER tagger for English and SPPC for German."
    assert crossed_pairs(kept, page) == []
