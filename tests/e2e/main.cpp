#define BOOST_TEST_MODULE keeper end - to - end tests
#include <boost/test/unit_test.hpp>
