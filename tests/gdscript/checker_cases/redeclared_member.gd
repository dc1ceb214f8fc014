extends Node
## A member may not redeclare its base's property, signal or constant; an override must fit the virtual.

var process_mode := 0  # expect: redeclared-member
signal ready  # expect: redeclared-member
var mine := 1


func _input(event, extra) -> void:  # expect: redeclared-member
	pass


func _process(delta: float) -> void:
	pass
