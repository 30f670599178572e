

def test_a_stored_prediction_names_the_knobs_it_was_made_with():
    from workbench.app.callbacks_whatif import cost_model_words

    assert cost_model_words("cpu") == "cpu"
    assert cost_model_words("cpu+peak_flops=2.18e10+transcendental_flops=870") == \
        "cpu, knobs moved: peak_flops=2.18e+10, transcendental_flops=870"
    assert cost_model_words(None) == "-"
    assert cost_model_words("cpu+peak_flops=21808134571.533905+transcendental_flops="
                            "869.6263565463044") == \
        "cpu, knobs moved: peak_flops=2.181e+10, transcendental_flops=869.6"
